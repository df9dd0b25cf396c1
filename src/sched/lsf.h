// LsfScheduler: the `lsf` backend (IBM Spectrum LSF), after ReFrame's
// LsfJobScheduler (reframe/core/schedulers/lsf.py). LSF is not in Debian,
// so the tests read the formats of IBM's LSF 10.1 documentation:
// bsub ("Job <ID> is submitted to queue <Q>."), `bjobs -o` with a
// delimiter and -noheader (lsf_command_ref/bjobs.o.1), the job states of
// bjobs(1) and "Job <ID> is not found" for unknown ids.
//
//  - Job scripts carry #BSUB lines as ReFrame writes them: -J name, -o, -e,
//    -nnodes N when num_tasks_per_node is set (N = tasks / per node) else
//    -n tasks, -R "affinity[core(C)]" for num_cpus_per_task, -W minutes
//    for the time limit, the access options (unless sched_access_in_submit),
//    the job options ('#' ones verbatim), -x for exclusive_access.
//  - Submission: `bsub [access]` with the script on standard input (bsub
//    reads #BSUB lines only there).
//  - Polling, per poll for all jobs in flight (500 ids a command at most):
//    `bjobs -o "jobid stat exit_code exec_host pend_reason delimiter='|'"
//    -noheader <ids>` (pend_reason last: it is free text). Finished jobs stay in
//    bjobs for CLEAN_PERIOD (an hour by default).
//  - States: PEND queued (with pend_reason), PSUSP queued (held), WAIT
//    queued (chunk jobs), RUN running, USUSP/SSUSP running but suspended,
//    DONE completed(0), EXIT completed(exit_code; ReFrame treats EXIT as
//    completed too) or failed when LSF gives no exit code, UNKWN running
//    (the host does not answer; lost after lost_after), ZOMBI cancelled
//    (killed while its host was unreachable).
//  - Cancel: `bkill <ids>`.
// See BatchScheduler for retries, lost jobs and pending-time handling.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/batch_scheduler.h"

namespace hb {

class LsfScheduler : public BatchScheduler {
 public:
  LsfScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts);

  std::string name() const override { return "lsf"; }
  std::vector<std::string> Directives(const Job& job) const override;

 protected:
  std::vector<std::string> RequiredCommands() const override { return {"bsub", "bjobs", "bkill"}; }
  std::vector<std::string> SubmitCommand(const Job& job) const override;
  std::string SubmitStdin(const Job& job) const override { return job.script_path; }
  Result<std::string> ParseSubmitOutput(const CommandResult& r) const override;
  Result<Observations> Query(const std::vector<std::string>& ids) override;
  std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const override;
};

// ---- Pure functions, tested against the documented formats.

// A bjobs state word (STAT) as a JobState; exit_code is bjobs' EXIT_CODE
// field ("-" when none).
JobState LsfJobState(const std::string& stat, const std::string& exit_code, const std::string& pend_reason);
// The lines of `bjobs -o "jobid stat exit_code exec_host pend_reason
// delimiter='|'" -noheader`.
Observations ParseBjobs(const std::string& out);
// "4*hostA:2*hostB" (EXEC_HOST) -> {hostA, hostB}.
std::vector<std::string> ParseLsfExecHost(const std::string& exec_host);
// The job ids bjobs calls unknown on stderr ("Job <12> is not found").
std::vector<std::string> BjobsUnknownIds(const std::string& err);

}  // namespace hb
