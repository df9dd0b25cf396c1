#include "train/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace hbw::train {

// The few NVML entry points used, with the C signatures of nvml.h (NVML
// API version 2: nvmlInit_v2, nvmlDeviceGetHandleByIndex_v2). nvmlReturn_t
// is an int enum, NVML_SUCCESS is 0; nvmlDevice_t is an opaque pointer.
struct GpuMonitor::Api {
  struct Utilization {
    unsigned gpu, memory;  // nvmlUtilization_t
  };
  void* lib = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*handle_by_index)(unsigned, void**) = nullptr;
  int (*power_usage)(void*, unsigned*) = nullptr;
  int (*utilization)(void*, Utilization*) = nullptr;
  const char* (*error_string)(int) = nullptr;

  std::string Error(const char* what, int rc) const {
    return std::string(what) + ": " + (error_string ? error_string(rc) : std::to_string(rc));
  }
};

namespace {

template <typename Fn>
bool Load(void* lib, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return *fn != nullptr;
}

}  // namespace

GpuMonitor::~GpuMonitor() { Stop(); }

bool GpuMonitor::Start(unsigned index, int period_ms) {
  auto api = std::make_unique<Api>();
  api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    const char* e = dlerror();
    why_ = e ? e : "dlopen(libnvidia-ml.so.1) failed";
    return false;
  }
  if (!Load(api->lib, "nvmlInit_v2", &api->init) || !Load(api->lib, "nvmlShutdown", &api->shutdown) ||
      !Load(api->lib, "nvmlDeviceGetHandleByIndex_v2", &api->handle_by_index) ||
      !Load(api->lib, "nvmlDeviceGetPowerUsage", &api->power_usage) ||
      !Load(api->lib, "nvmlDeviceGetUtilizationRates", &api->utilization)) {
    why_ = "libnvidia-ml.so.1 lacks an NVML function";
    dlclose(api->lib);
    return false;
  }
  Load(api->lib, "nvmlErrorString", &api->error_string);
  if (int rc = api->init(); rc != 0) {
    why_ = api->Error("nvmlInit", rc);
    dlclose(api->lib);
    return false;
  }
  if (int rc = api->handle_by_index(index, &device_); rc != 0) {
    why_ = api->Error(("nvmlDeviceGetHandleByIndex(" + std::to_string(index) + ")").c_str(), rc);
    api->shutdown();
    dlclose(api->lib);
    return false;
  }
  api_ = api.release();
  why_.clear();
  SampleOnce();
  thread_ = std::thread([this, period_ms] { Loop(period_ms); });
  return true;
}

bool GpuMonitor::SampleOnce() {
  unsigned mw = 0;
  Api::Utilization u{};
  bool power_ok = api_->power_usage(device_, &mw) == 0;
  bool util_ok = api_->utilization(device_, &u) == 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (power_ok) power_sum_ += mw / 1000.0, ++power_n_;
  if (util_ok) util_sum_ += u.gpu, ++util_n_;
  return power_ok || util_ok;
}

void GpuMonitor::Loop(int period_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(period_ms), [this] { return stop_; })) {
    lock.unlock();
    SampleOnce();
    lock.lock();
  }
}

GpuSample GpuMonitor::Stop() {
  GpuSample s;
  if (!api_) {
    s.why = why_;
    return s;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  api_->shutdown();
  dlclose(api_->lib);
  delete api_;
  api_ = nullptr;
  why_ = "stopped";
  s.samples = std::max(power_n_, util_n_);
  s.available = s.samples > 0;
  if (!s.available) s.why = "NVML returned no samples";
  if (power_n_) s.power_avg_w = power_sum_ / power_n_;
  if (util_n_) s.util_avg = util_sum_ / util_n_;
  return s;
}

}  // namespace hbw::train
