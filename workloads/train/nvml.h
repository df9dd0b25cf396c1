// GpuMonitor samples one NVIDIA GPU's power draw and utilisation through
// NVML in a background thread. NVML is opened at run time with
// dlopen("libnvidia-ml.so.1"), so the program has no link-time GPU
// dependency and runs unchanged where there is no driver.
//
// Owned by the training loop: Start() once, Stop() once (also on
// destruction); the sampling thread only touches the sums, under a mutex.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace hbw::train {

struct GpuSample {
  bool available = false;
  std::string why;         // when not available: the reason
  double power_avg_w = 0;  // mean of nvmlDeviceGetPowerUsage (mW) / 1000
  double util_avg = 0;     // mean of nvmlUtilization_t.gpu, percent
  int samples = 0;
};

class GpuMonitor {
 public:
  GpuMonitor() = default;
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  // Opens NVML and starts sampling device `index` every period_ms. When NVML
  // or the device is missing, returns false and Stop() reports why.
  bool Start(unsigned index, int period_ms = 100);
  // Stops sampling and returns the means since Start.
  GpuSample Stop();

 private:
  void Loop(int period_ms);
  bool SampleOnce();

  struct Api;
  Api* api_ = nullptr;
  void* device_ = nullptr;
  std::string why_ = "not started";
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  double power_sum_ = 0, util_sum_ = 0;
  int power_n_ = 0, util_n_ = 0;
};

}  // namespace hbw::train
