// The two record encodings inside TFRecord files and LMDB values, written
// and parsed by hand (protobuf wire format, no protobuf library):
//  - tf.train.Example: Features map<string, Feature>, each Feature a
//    bytes_list, float_list or int64_list (ImageNet and CosmoFlow TFRecords);
//  - caffe.Datum: channels, height, width, data, label, encoded (Caffe's
//    ImageNet LMDBs hold encoded JPEG bytes in `data`).
// Parsed views point into the caller's buffer, which must outlive them.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hbw::data {

struct Feature {
  enum Kind { kNone, kBytes, kFloat, kInt64 } kind = kNone;
  std::vector<std::string_view> bytes;
  std::vector<float> floats;
  std::vector<int64_t> ints;
};
using Features = std::map<std::string, Feature, std::less<>>;

// Builds the serialised Example. Features are written in key order.
class ExampleBuilder {
 public:
  ExampleBuilder& Bytes(const std::string& key, std::string_view value);
  ExampleBuilder& Floats(const std::string& key, const std::vector<float>& values);
  ExampleBuilder& Ints(const std::string& key, const std::vector<int64_t>& values);
  std::string Serialize() const;

 private:
  std::map<std::string, std::string> features_;  // key -> serialised Feature
};

// Parses a serialised Example; false with *err on malformed input.
bool ParseExample(std::string_view data, Features* out, std::string* err);

struct Datum {
  int32_t channels = 0, height = 0, width = 0, label = 0;
  bool encoded = false;
  std::string_view data;
};
std::string SerializeDatum(const Datum& d);
bool ParseDatum(std::string_view data, Datum* out, std::string* err);

}  // namespace hbw::data
