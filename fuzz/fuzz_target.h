// The one entry point every fuzz target defines, as libFuzzer calls it.
// Each fuzz/fuzz_*.cc feeds arbitrary bytes to one reader of outside input
// and must never crash, hang or trip a sanitizer; it may abort() when a
// property it checks fails (fuzz_scan.cc compares two searches).
//
// Built two ways (CMakeLists.txt): with -DHETBENCH_FUZZ=ON and clang,
// linked with libFuzzer for bench/fuzz.sh; always, linked with
// replay_main.cc, to replay the committed corpus under ctest.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
