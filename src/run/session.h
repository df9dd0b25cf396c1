// A session: one invocation of `hetbench list` or `hetbench run`. This
// module turns the command-line options into everything the executor
// needs: the site configuration, the chosen System and Partitions, the
// loaded TestSuite and the expanded TestCases, plus the session id and the
// folders the run writes to. Built once, read-only afterwards.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/site_config.h"
#include "model/expand.h"
#include "model/expr.h"
#include "model/test_loader.h"
#include "util/status.h"

namespace hb {

struct SessionOptions {
  std::vector<std::string> test_paths;    // -c
  bool recursive = false;                 // -R
  CaseFilter filter;                      // -n -x -t -p -E
  bool allow_empty = false;               // --allow-empty: filters that select nothing are not an error
  std::string system;                     // --system sys[:part]
  std::vector<std::string> config_files;  // -C (after HETBENCH_CONFIG_FILES)
  std::string prefix;                     // --prefix; "" = the system's `prefix`, else "."
  std::string kubeconfig;                 // run's --kubeconfig, for the load-time check of tests' k8s blocks
  std::string hostname;                   // "" = this host's name
  std::vector<std::string> setvars;       // -S [TEST.]FIELD=VALUE (model/setvar.h)
  int verbosity = 0;                      // -v, repeatable: the main log on the terminal
  bool log_file = false;                  // write <prefix>/hetbench.log (run) unless the configuration has handlers
};

struct Session {
  SiteConfig config;
  std::string system_name;
  std::vector<std::string> partition_names;  // those selected
  TestSuite suite;
  std::vector<TestCase> cases;
  SelectionReport selection;  // what the filters did
  std::string id;             // unique per invocation: YYYYMMDDTHHMMSS-<pid>
  std::string prefix;         // absolute
  // Where cases stage and keep their files: the system's `stagedir` and
  // `outputdir` (ReFrame's), else PREFIX/stage and PREFIX/output; absolute.
  std::string stage_root, output_root;
  // general: max_output_per_case (docs/limits.md): a job's stdout or
  // stderr beyond it stops the job and fails the case.
  static constexpr uint64_t kDefaultMaxOutputPerCase = uint64_t{1} << 30;
  uint64_t max_output_per_case = kDefaultMaxOutputPerCase;

  const System& system() const;
  const Partition& partition(const std::string& name) const;
  const Environment* environment(const TestCase& c) const;
};

// Loads configuration and tests and expands the cases, and sets up the
// main log (results/main_log.h), to which it records what it read and
// chose: the configuration files, the system and why, the test files
// read and skipped, what each filter dropped. Every error is one
// message with file:line:column where it comes from a file. Filters (-n,
// -x, -t, -p, -E) that leave no case are an error that says which option
// matched nothing, unless allow_empty.
Result<std::unique_ptr<Session>> OpenSession(const SessionOptions& opts);

// Checks references against the configuration: a reference to a partition
// that the configuration does not define, for a system it does define, is
// an error (references to unknown systems are ignored: a suite carries
// references for many sites).
Status CheckReferences(const TestSuite& suite, const SiteConfig& config);

std::string NewSessionId();

// The placeholder names a partition defines (model/bind.h): processor.FIELD
// for each known field of its processor, and devices.TYPE.num_devices,
// devices.TYPE.arch and devices.TYPE.model for each device type, and the
// system's system.resourcesdir.
std::shared_ptr<const std::map<std::string, Value>> PartitionValues(const System& sys, const Partition& p);

// The site configuration in force: the files given with -C, else those in
// HETBENCH_CONFIG_FILES, else the embedded generic configuration; partitions
// that leave out `processor` or `devices` get their cached topology
// (config/topology.h).
Result<SiteConfig> LoadConfiguration(const std::vector<std::string>& cli_files);

}  // namespace hb

namespace hb {

// Keeps only the cases whose id is in `ids`, plus the cases they depend on
// (transitively), re-linking dependencies. Used by --restore-session.
void RestrictCases(Session* session, const std::vector<std::string>& ids);

// --distribute: every case becomes one case per node of its partition that
// is in `state` (see Scheduler::ListNodes), with the node as parameter
// `$nid` ("stream %$nid=nid001", as ReFrame names them) and the job pinned
// to it. A case's dependencies are its dependencies' copies on the same
// node. `list_nodes` answers for one partition (the executor's schedulers
// in real runs, a fake in tests); it is asked once per partition. A
// partition with no node in that state is an error that names it.
using NodeLister = std::function<Result<std::vector<std::string>>(const Partition&)>;
Status DistributeCases(Session* session, const NodeLister& list_nodes);
// The parameter --distribute adds.
inline constexpr char kNodeParam[] = "$nid";

}  // namespace hb
