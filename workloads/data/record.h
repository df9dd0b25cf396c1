// One sample as a record: the payload of a TFRecord record or an LMDB
// value. imagenet records hold encoded JPEG bytes (a tf.train.Example as in
// the ImageNet TFRecords, or a caffe.Datum in LMDB); cosmoflow records are
// CosmoFlow's Example ("x": raw int16 bytes, "y": 4 floats); deepcam records
// are an Example with "data" (raw float32 HWC) and "label" (raw int32 HW).
// Internal to hbw_data. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "data/dataset.h"
#include "data/samples.h"

namespace hbw::data {

constexpr int kJpegQuality = 95;

// `datum`: the Caffe LMDB encoding for imagenet (otherwise an Example).
bool EncodeRecord(const SampleSpec& spec, const RawSample& raw, size_t index, bool datum, std::string* out,
                  std::string* err);
// Parses (and with `decode`, decodes) a record. Without decode, *out is
// left empty but the record's structure and sizes are still checked.
bool DecodeRecord(const SampleSpec& spec, std::string_view record, bool datum, bool decode, Sample* out,
                  std::string* err);
// JPEG bytes -> normalised CHW sample, resized to the spec if it differs.
bool DecodeImageJpeg(const SampleSpec& spec, std::string_view jpeg, int64_t label, Sample* out, std::string* err);

}  // namespace hbw::data
