// FluxScheduler: the `flux` backend (the Flux framework, flux-core). ReFrame
// speaks to Flux through its Python bindings (reframe/core/schedulers/
// flux.py); hetbench uses Flux's own commands, which need no Python on
// hetbench's side. Flux is not in Debian 12, so the tests read the formats
// of flux-core's sources (src/cmd/flux-jobs.py, src/bindings/python/flux/
// job/info.py and directives.py; flux-jobs(1), flux-batch(1)).
//
//  - Job scripts carry `# flux:` directives (flux-batch(1), RFC 36):
//    --job-name, --output, --error, -n tasks, -c cores per task, -N nodes
//    (tasks / tasks per node, when set), -g GPUs per task (GPUs per node /
//    tasks per node), -t <seconds>s, --exclusive, the access options
//    (unless sched_access_in_submit) and the job options.
//  - Submission: `flux batch [access] <script>`; it prints the job id
//    (F58, "ƒ" or "f" first). hetbench keeps it in ASCII ("f...").
//  - Polling, per poll for all jobs in flight (500 ids a command at most):
//    one `flux jobs -n -o "{id.f58plain}|{state}|{result}|{returncode}|
//    {nodelist}|{t_run}|{t_inactive}|{exception.note}" <ids>`; with ids,
//    flux jobs lists them in every state and says "JobID <id> unknown" of
//    the others.
//  - States: DEPEND, PRIORITY, SCHED queued; RUN running; CLEANUP running
//    (ending); INACTIVE by result: COMPLETED or FAILED completed(returncode;
//    a negative one, a signal, is failed), CANCELED cancelled, TIMEOUT
//    timeout, with the exception's note as the reason.
//  - Cancel: `flux cancel <ids>`.
// See BatchScheduler for retries, lost jobs and pending-time handling.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/batch_scheduler.h"

namespace hb {

class FluxScheduler : public BatchScheduler {
 public:
  FluxScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts);

  std::string name() const override { return "flux"; }
  std::vector<std::string> Directives(const Job& job) const override;

 protected:
  std::vector<std::string> RequiredCommands() const override { return {"flux"}; }
  std::vector<std::string> SubmitCommand(const Job& job) const override;
  Result<std::string> ParseSubmitOutput(const CommandResult& r) const override;
  Result<Observations> Query(const std::vector<std::string>& ids) override;
  std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const override;
};

// ---- Pure functions, tested against flux-core's formats.

// A job id as Flux prints it, in ASCII: a leading "ƒ" (U+0192) becomes "f".
std::string FluxAsciiId(const std::string& id);
// The lines of the `flux jobs -n -o ...` query above.
Observations ParseFluxJobs(const std::string& out);

}  // namespace hb
