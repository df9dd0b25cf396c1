// An NVIDIA GPU's theoretical fp32 peak (CUDA cores, not tensor cores):
//
//   peak = SMs x clock x FP32 lanes per SM x 2 (an FMA is two FLOPs)
//
// with the lanes per SM of the CUDA C++ Programming Guide's throughput
// table ("32-bit floating-point add, multiply, multiply-add", results per
// clock cycle per multiprocessor) and the clock that the driver reports
// (cudaDevAttrClockRate, the maximum boost clock). An H100/H200 SXM: 132 x
// 1.98 GHz x 128 x 2 = 66.9 TFLOP/s, NVIDIA's published 67. Pure; tested.
#pragma once

#include <string>

#include "compute/cpu_peak.h"

namespace hbcompute {

// FP32 lanes per SM for compute capability major.minor; 0 if unknown.
int Fp32LanesPerSm(int major, int minor);
// The estimate above; an unknown architecture gets 128 lanes, and says so.
Peak GpuPeak(int sms, double ghz, int major, int minor);

}  // namespace hbcompute
