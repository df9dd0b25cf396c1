// Performance: extracts the figures of merit of a test from a job's output.
// Each performance variable (PerfSpec) is a regex whose group is converted
// to a number in every match and reduced to one value, like ReFrame's
// sn.extractall + sn.max & co. (reframe/utility/sanity.py). Comparing the
// value with a reference is reference.h's job; value_checks written on the
// variable itself apply here.
//
// Pure functions apart from reading the output files.
#pragma once

#include <string>
#include <vector>

#include "check/check_spec.h"
#include "check/extract.h"
#include "util/status.h"

namespace hb {

struct PerfValue {
  std::string name;
  double value = 0;
  std::string unit;
};

// The value of one variable. Errors name the variable, e.g.
// "triad: pattern 'Triad:\s+(\S+)' not found in stdout"; the caller adds
// the stage ("performance: ...").
Result<double> ExtractPerf(const PerfSpec& spec, const CheckInput& in);
Result<double> ExtractPerf(const PerfSpec& spec, OutputFiles& files);

// All variables in order, each streaming its file once; stops at the first error.
Result<std::vector<PerfValue>> ExtractPerformance(const std::vector<PerfSpec>& specs, const CheckInput& in);
Result<std::vector<PerfValue>> ExtractPerformance(const std::vector<PerfSpec>& specs, OutputFiles& files);

}  // namespace hb
