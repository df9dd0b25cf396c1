// What happens to a case after its job: the performance stage, and the
// files it keeps.
//
// The performance stage: every performance variable of its spec,
// extracted from the job's output or derived from others (model/bind.h),
// each checked against its reference for the case's system and partition
// (check/reference.h). The executor runs it after the sanity check.
#pragma once

#include <string>
#include <vector>

#include "check/reference.h"
#include "check/sanity.h"
#include "config/site_config.h"
#include "model/expand.h"

namespace hb {

struct PerfOutcome {
  std::vector<PerfResult> perf;  // the variables that have a value, in the file's order
  std::string failure;           // the first failure, in the file's order; "" = pass
  bool interrupted = false;      // a signal stopped the search of the output
};

// Extracted variables first, then those derived from them (a derived one
// may use one derived below it: evaluated until no more can be; the rest
// fail naming their missing inputs), then every value against its
// reference.
PerfOutcome CheckPerformance(const TestSpec& spec, const TestCase& tc, const Partition& part, const CheckInput& in);

// Copies the stage folder's files that match `patterns` (keep_files,
// globs relative to the stage folder) to the same places below the output
// folder. Only what is inside the stage folder is kept (the loader refuses
// absolute and '..' patterns; a link out of the stage is not followed).
// Returns one line for each file that was not kept, saying why.
std::vector<std::string> KeepFiles(const std::string& stagedir, const std::string& outputdir,
                                   const std::vector<std::string>& patterns);

}  // namespace hb
