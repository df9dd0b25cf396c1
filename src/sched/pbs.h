// PbsScheduler: the PBS family of batch backends, under ReFrame's names.
//  - `pbs` / `pbspro`: PBS Professional and OpenPBS. States come from one
//    `qstat -f -F json -x <ids...>` per poll; `-x` includes finished jobs
//    (job history), whose Exit_status is the job's result. Should the JSON
//    be unusable (invalid, as qstat prints for some environment values,
//    openpbs#2541; or missing jobs it did not call unknown, openpbs#2672),
//    the backend says so once and reads `qstat -f -x` text from then on.
//  - `torque`: Torque. States come from one `qstat -f <ids...>` per poll
//    (text); completed jobs stay in state C for keep_completed seconds.
// Jobs are submitted with `qsub` (the job id is its stdout line, e.g.
// `1234.pbsserver`) and cancelled with `qdel`. Job scripts carry #PBS lines
// as ReFrame's PbsJobScheduler / TorqueJobScheduler write them
// (reframe/core/schedulers/pbs.py, torque.py).
// A job qstat no longer knows (no job history, or keep_completed passed)
// is "not found": BatchScheduler reports it lost after lost_after seconds,
// or cancelled when hetbench asked to cancel it. See BatchScheduler for
// polling, faults and pending-time handling. Used from the executor's
// thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/batch_scheduler.h"

namespace hb {

enum class PbsFlavor { kPro, kTorque };

class PbsScheduler : public BatchScheduler {
 public:
  // name: "pbs", "pbspro" (PBS Professional / OpenPBS) or "torque".
  PbsScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts);

  std::string name() const override { return name_; }
  std::vector<std::string> Directives(const Job& job) const override;
  PbsFlavor flavor() const { return flavor_; }
  bool using_json() const { return use_json_; }

 protected:
  std::vector<std::string> RequiredCommands() const override;
  std::vector<std::string> SubmitCommand(const Job& job) const override;
  Result<std::string> ParseSubmitOutput(const CommandResult& r) const override;
  Result<Observations> Query(const std::vector<std::string>& ids) override;
  std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const override;

 private:
  std::vector<std::string> QstatCommand(const std::vector<std::string>& ids, bool json) const;
  Result<Observations> QueryJson(const std::vector<std::string>& ids, const std::string& out,
                                 const std::vector<std::string>& unknown);
  void NoticeMissing(const std::vector<std::string>& unknown);

  std::string name_;
  PbsFlavor flavor_;
  bool use_json_;
};

// ---- Pure functions, tested against the formats PBS and Torque print.

// What qstat says about one job, from either format.
struct PbsJobRecord {
  std::string id;
  char state = 0;       // job_state letter
  std::string comment;  // the scheduler's comment ("Not Running: ...")
  bool has_exit_status = false;
  int exit_status = 0;         // Exit_status (PBS) / exit_status (Torque)
  std::string exec_host;       // "n1/0*2+n2/0*2"
  std::string start, end;      // stime / start_time, obittime / comp_time
  double walltime_used = -1;   // resources_used.walltime, seconds; -1 unknown
  double walltime_limit = -1;  // Resource_List.walltime, seconds; -1 unknown
  bool complete = true;        // text: the record ended with its blank line
};

// Maps a record to a JobState; kind kNone for a job_state letter that is
// not PBS's or Torque's (the record is then ignored). Negative exit
// statuses are the flavour's own codes (JOB_EXEC_*), >= 256 means killed
// by signal (status - 256).
JobState PbsJobState(PbsFlavor flavor, const PbsJobRecord& r);
// `qstat -f -F json` (PBS Pro / OpenPBS); an error for invalid JSON.
Result<std::vector<PbsJobRecord>> ParseQstatJson(const std::string& out);
// `qstat -f` text ("Job Id: ..." then "    key = value" lines, long values
// continued on lines that start with a tab). Garbled lines are skipped.
std::vector<PbsJobRecord> ParseQstatText(const std::string& out);
// Records to observations (records with an unknown state, or finished
// jobs whose record was cut short, are left out).
Observations PbsObservations(PbsFlavor flavor, const std::vector<PbsJobRecord>& records);
// The job ids qstat's stderr says it does not know ("Unknown Job Id", "Job
// has finished"); *only_those is false when stderr says anything else.
std::vector<std::string> QstatUnknownIds(const std::string& err, bool* only_those);
// "n1/0*2+n2/0*2" or "n1/0-3+n2/0-3" -> n1 n2.
std::vector<std::string> ParsePbsExecHost(const std::string& exec_host);
// "Tue Oct  4 21:23:33 2022" (local time) or epoch seconds -> epoch
// seconds; 0 when empty or unreadable.
double ParsePbsTime(const std::string& text);
// ReFrame's job name for PBS: non-alphanumerics become '_', at most 15
// characters (toalphanum(name)[:15]).
std::string PbsJobName(const std::string& name);

// For a launcher that runs once per node: mpiexec -n N --ppn 1 (MPICH,
// Intel MPI and Cray PALS spell one per node so); the first line of
// $PBS_NODEFILE is the rendezvous host.
NodeSpawn PbsNodeSpawn(const Job& job, int nnodes, int cpus_per_node);

}  // namespace hb
