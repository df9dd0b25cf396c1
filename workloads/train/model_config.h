// Which network hetbench-train builds and at what size (models.h builds
// it). Kept free of torch headers so that main.cc compiles quickly.
#pragma once

#include <cstdint>
#include <string>

namespace hbw::train {

struct ModelConfig {
  std::string name = "resnet50";     // resnet50 | deepcam | cosmoflow
  int64_t image_h = 0, image_w = 0;  // resnet50, deepcam; 0 = reference size
  double width = 1.0;                // resnet50, deepcam: channel multiplier
  int64_t num_classes = 0;           // resnet50 (1000); deepcam has 3
  int64_t cube = 0;                  // cosmoflow: 128
  int64_t base_channels = 0;         // cosmoflow: 32 (the reference's conv_size)
};

// Fills the reference sizes into zero fields and checks the rest; on a bad
// configuration returns false with *err naming the flag at fault.
bool ResolveModelConfig(ModelConfig* cfg, std::string* err);

}  // namespace hbw::train
