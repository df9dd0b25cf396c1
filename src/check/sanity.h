// Sanity: decides whether a job's output shows it worked, from the sanity
// entries of a test file (check_spec.h). The semantics mirror ReFrame's
// sanity functions (reframe/utility/sanity.py): a pattern must be found
// (assert_found), a not_pattern must not be (assert_not_found), a captured
// value or the number of matches must compare as asked (extractall +
// assert_eq & co). Patterns search the whole file as ReFrame does (see
// regex.h), streamed rather than read whole (Regex::Scan).
//
// Also the load-time validation of sanity and performance entries, so that
// a bad regex or a missing group is an error at the test file's line and
// column rather than a failure at run time.
//
// Pure functions apart from reading the output files.
#pragma once

#include <vector>

#include "check/check_spec.h"
#include "check/extract.h"
#include "util/status.h"

namespace hb {

// Evaluates the specs in order and returns the first failure, with a short
// message such as "pattern 'Solution Validates' not found in stdout" or
// "'wrong: (\d+)' group 1 in stdout: 2 is not eq 0". Unless one spec is an
// exit_code entry, a non-zero exit code fails first ("exit code 3"); an
// unknown exit code (-1) does not. Each entry streams its file once
// (OutputFiles), so memory does not grow with the output.
Status EvaluateSanity(const std::vector<SanitySpec>& specs, const CheckInput& in);
// The same, with the files of a job already described.
Status EvaluateSanity(const std::vector<SanitySpec>& specs, OutputFiles& files);

// Compile the regex, check that the group exists, and that the type,
// reduce and comparison operators are known. Errors carry the spec's mark.
Status ValidateSanitySpec(const SanitySpec& spec);
Status ValidatePerfSpec(const PerfSpec& spec);

}  // namespace hb
