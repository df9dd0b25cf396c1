// A stand-in for NVIDIA's libnvidia-ml.so.1, for the tests of hetbench-train's
// GPU monitor (train/nvml.h) on machines without an NVIDIA driver: the same
// C entry points and return codes (nvml.h, API version 2), answering for one
// device, index 0, that draws 250 W (250000 mW) at 87 % utilisation. The
// monitor's dlopen/dlsym, error and sampling paths run unchanged against it.
//
// Setting HBW_NVML_STANDIN_NO_DRIVER makes nvmlInit_v2 fail as it does on a
// node without the driver loaded (NVML_ERROR_DRIVER_NOT_LOADED).
// For tests only; never installed.
#include <cstdlib>

namespace {
constexpr int kSuccess = 0, kInvalidArgument = 2, kDriverNotLoaded = 9;
int device_token;  // the one device's opaque handle
}  // namespace

extern "C" {

struct StandinUtilization {
  unsigned gpu, memory;  // nvmlUtilization_t
};

int nvmlInit_v2() { return std::getenv("HBW_NVML_STANDIN_NO_DRIVER") ? kDriverNotLoaded : kSuccess; }

int nvmlShutdown() { return kSuccess; }

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index != 0 || !device) return kInvalidArgument;
  *device = &device_token;
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned* milliwatts) {
  if (device != &device_token || !milliwatts) return kInvalidArgument;
  *milliwatts = 250000;
  return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* device, StandinUtilization* u) {
  if (device != &device_token || !u) return kInvalidArgument;
  u->gpu = 87;
  u->memory = 40;
  return kSuccess;
}

// NVML's own wording for the codes above.
const char* nvmlErrorString(int rc) {
  switch (rc) {
    case kSuccess:
      return "Success";
    case kInvalidArgument:
      return "Invalid Argument";
    case kDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

}  // extern "C"
