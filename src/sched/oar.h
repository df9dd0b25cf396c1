// OarScheduler: the `oar` backend (OAR 2.5), after ReFrame's
// OarJobScheduler (reframe/core/schedulers/oar.py). The formats are those
// of Debian 12's oar-user 2.5.9: oarsub prints "OAR_JOB_ID=<id>"; `oarstat
// -f -J -j ID -j ID ...` prints a JSON object of the jobs by id, with
// `state`, `exit_code` (a wait status: exit code << 8), `events` and
// `assigned_network_address` (OAR::Stat::get_job_data). The tests read
// those formats; an OAR server needs a database and its own daemons.
//
//  - Job scripts carry #OAR lines as ReFrame writes them: -n "name", -O
//    and -E (the output files), -l /host=N/core=T[,walltime=H:M:S] (N =
//    tasks / tasks per node, T = tasks per node, 1 when unset), the access
//    options (unless sched_access_in_submit) and the job options.
//  - Submission: `oarsub [access] -S <script>` (-S: read #OAR lines).
//  - Polling, per poll for all jobs in flight (500 ids a command at most):
//    one `oarstat -f -J -j <id> -j <id> ...`; ReFrame runs one `oarstat
//    -fj <id>` per job.
//  - States (OAR's, as oarstat names them): Waiting, toAckReservation
//    queued; Hold queued (held); toLaunch, Launching starting; Running,
//    Finishing, Suspended, Resuming, toError running; Terminated
//    completed(exit_code >> 8); Error: timeout when an event says WALLTIME,
//    cancelled after FRAG_JOB_REQUEST (oardel), else completed with its
//    exit code when there is one, else failed with the job's message.
//  - Cancel: `oardel <ids>`.
// See BatchScheduler for retries, lost jobs and pending-time handling.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/batch_scheduler.h"

namespace hb {

class OarScheduler : public BatchScheduler {
 public:
  OarScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts);

  std::string name() const override { return "oar"; }
  std::vector<std::string> Directives(const Job& job) const override;

 protected:
  std::vector<std::string> RequiredCommands() const override { return {"oarsub", "oarstat", "oardel"}; }
  std::vector<std::string> SubmitCommand(const Job& job) const override;
  Result<std::string> ParseSubmitOutput(const CommandResult& r) const override;
  Result<Observations> Query(const std::vector<std::string>& ids) override;
  std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const override;
};

// ---- Pure functions, tested against oar-user 2.5.9's formats.

// What `oarstat -f -J -j ...` says of the jobs; invalid JSON is an error.
Result<Observations> ParseOarstatJson(const std::string& out);

}  // namespace hb
