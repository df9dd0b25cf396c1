#include "compute/gpu_peak.h"

#include <cstdio>

namespace hbcompute {

int Fp32LanesPerSm(int major, int minor) {
  switch (major) {
    case 5:
      return 128;  // Maxwell
    case 6:
      return minor == 0 ? 64 : 128;  // Pascal: P100 64, others 128
    case 7:
      return 64;  // Volta, Turing
    case 8:
      return minor == 0 ? 64 : 128;  // Ampere: A100 64; GA10x, Ada 128
    case 9:
      return 128;  // Hopper
    case 10:
    case 12:
      return 128;  // Blackwell
    default:
      return 0;
  }
}

Peak GpuPeak(int sms, double ghz, int major, int minor) {
  int lanes = Fp32LanesPerSm(major, minor);
  bool guess = lanes == 0;
  if (guess) lanes = 128;
  Peak p;
  p.gflops = sms * ghz * lanes * 2;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%d SMs x %.3f GHz (max clock) x %d FP32 lanes (sm_%d%d%s) x 2; an estimate, pass --peak", sms, ghz,
                lanes, major, minor, guess ? ", unknown: a guess" : "");
  p.basis = buf;
  return p;
}

}  // namespace hbcompute
