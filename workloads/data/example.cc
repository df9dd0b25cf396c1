#include "data/example.h"

#include <cstring>

namespace hbw::data {
namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
void PutTag(std::string* out, int field, WireType type) { PutVarint(out, (uint64_t(field) << 3) | type); }
void PutBytes(std::string* out, int field, std::string_view v) {
  PutTag(out, field, kLengthDelimited);
  PutVarint(out, v.size());
  out->append(v);
}

// A cursor over protobuf wire data; every read is bounds-checked.
class Wire {
 public:
  explicit Wire(std::string_view d) : d_(d) {}
  bool done() const { return pos_ >= d_.size(); }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= d_.size()) return false;
      uint8_t b = static_cast<uint8_t>(d_[pos_++]);
      *v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool Bytes(std::string_view* v) {
    uint64_t n;
    if (!Varint(&n) || n > d_.size() - pos_) return false;
    *v = d_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Fixed32(uint32_t* v) {
    if (d_.size() - pos_ < 4) return false;
    std::memcpy(v, d_.data() + pos_, 4);
    pos_ += 4;
    return true;
  }
  bool Tag(int* field, int* type) {
    uint64_t t;
    if (!Varint(&t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) return false;
    *field = static_cast<int>(t >> 3);
    *type = static_cast<int>(t & 7);
    return true;
  }
  // Skips a field of the given wire type.
  bool Skip(int type) {
    uint64_t v;
    std::string_view s;
    switch (type) {
      case kVarint:
        return Varint(&v);
      case kFixed64:
        return Advance(8);
      case kLengthDelimited:
        return Bytes(&s);
      case kFixed32:
        return Advance(4);
      default:
        return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (d_.size() - pos_ < n) return false;
    pos_ += n;
    return true;
  }
  std::string_view d_;
  size_t pos_ = 0;
};

bool ParseFloatList(std::string_view d, Feature* f) {
  Wire w(d);
  int field, type;
  while (!w.done()) {
    if (!w.Tag(&field, &type)) return false;
    if (field == 1 && type == kLengthDelimited) {  // packed
      std::string_view p;
      if (!w.Bytes(&p) || p.size() % 4) return false;
      size_t old = f->floats.size();
      f->floats.resize(old + p.size() / 4);
      std::memcpy(f->floats.data() + old, p.data(), p.size());
    } else if (field == 1 && type == kFixed32) {
      uint32_t u;
      if (!w.Fixed32(&u)) return false;
      float x;
      std::memcpy(&x, &u, 4);
      f->floats.push_back(x);
    } else if (!w.Skip(type)) {
      return false;
    }
  }
  return true;
}

bool ParseInt64List(std::string_view d, Feature* f) {
  Wire w(d);
  int field, type;
  uint64_t v;
  while (!w.done()) {
    if (!w.Tag(&field, &type)) return false;
    if (field == 1 && type == kLengthDelimited) {  // packed
      std::string_view p;
      if (!w.Bytes(&p)) return false;
      Wire pw(p);
      while (!pw.done()) {
        if (!pw.Varint(&v)) return false;
        f->ints.push_back(static_cast<int64_t>(v));
      }
    } else if (field == 1 && type == kVarint) {
      if (!w.Varint(&v)) return false;
      f->ints.push_back(static_cast<int64_t>(v));
    } else if (!w.Skip(type)) {
      return false;
    }
  }
  return true;
}

bool ParseBytesList(std::string_view d, Feature* f) {
  Wire w(d);
  int field, type;
  while (!w.done()) {
    if (!w.Tag(&field, &type)) return false;
    if (field == 1 && type == kLengthDelimited) {
      std::string_view s;
      if (!w.Bytes(&s)) return false;
      f->bytes.push_back(s);
    } else if (!w.Skip(type)) {
      return false;
    }
  }
  return true;
}

// Feature: oneof bytes_list = 1, float_list = 2, int64_list = 3.
bool ParseFeature(std::string_view d, Feature* f) {
  Wire w(d);
  int field, type;
  while (!w.done()) {
    if (!w.Tag(&field, &type)) return false;
    if (type != kLengthDelimited || field < 1 || field > 3) {
      if (!w.Skip(type)) return false;
      continue;
    }
    std::string_view list;
    if (!w.Bytes(&list)) return false;
    *f = Feature();
    if (field == 1) f->kind = Feature::kBytes;
    if (field == 2) f->kind = Feature::kFloat;
    if (field == 3) f->kind = Feature::kInt64;
    bool ok = field == 1 ? ParseBytesList(list, f) : field == 2 ? ParseFloatList(list, f) : ParseInt64List(list, f);
    if (!ok) return false;
  }
  return true;
}

// Features map entry: key = 1, value = 2.
bool ParseEntry(std::string_view d, Features* out) {
  Wire w(d);
  int field, type;
  std::string_view key, value;
  while (!w.done()) {
    if (!w.Tag(&field, &type)) return false;
    if (type == kLengthDelimited && field == 1) {
      if (!w.Bytes(&key)) return false;
    } else if (type == kLengthDelimited && field == 2) {
      if (!w.Bytes(&value)) return false;
    } else if (!w.Skip(type)) {
      return false;
    }
  }
  return ParseFeature(value, &(*out)[std::string(key)]);
}

}  // namespace

ExampleBuilder& ExampleBuilder::Bytes(const std::string& key, std::string_view value) {
  std::string list;
  PutBytes(&list, 1, value);
  std::string feature;
  PutBytes(&feature, 1, list);
  features_[key] = std::move(feature);
  return *this;
}

ExampleBuilder& ExampleBuilder::Floats(const std::string& key, const std::vector<float>& values) {
  std::string list;
  PutBytes(&list, 1, std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  std::string feature;
  PutBytes(&feature, 2, list);
  features_[key] = std::move(feature);
  return *this;
}

ExampleBuilder& ExampleBuilder::Ints(const std::string& key, const std::vector<int64_t>& values) {
  std::string packed;
  for (int64_t v : values) PutVarint(&packed, static_cast<uint64_t>(v));
  std::string list;
  PutBytes(&list, 1, packed);
  std::string feature;
  PutBytes(&feature, 3, list);
  features_[key] = std::move(feature);
  return *this;
}

std::string ExampleBuilder::Serialize() const {
  std::string features;
  for (const auto& [key, feature] : features_) {
    std::string entry;
    PutBytes(&entry, 1, key);
    PutBytes(&entry, 2, feature);
    PutBytes(&features, 1, entry);
  }
  std::string example;
  PutBytes(&example, 1, features);
  return example;
}

namespace {

// Features: repeated entry = 1.
bool ParseFeatures(std::string_view d, Features* out) {
  Wire w(d);
  int field, type;
  while (!w.done()) {
    std::string_view entry;
    if (!w.Tag(&field, &type)) return false;
    if (field == 1 && type == kLengthDelimited) {
      if (!w.Bytes(&entry) || !ParseEntry(entry, out)) return false;
    } else if (!w.Skip(type)) {
      return false;
    }
  }
  return true;
}

}  // namespace

// Example: features = 1.
bool ParseExample(std::string_view data, Features* out, std::string* err) {
  out->clear();
  Wire w(data);
  int field, type;
  bool ok = true;
  while (ok && !w.done()) {
    std::string_view features;
    ok = w.Tag(&field, &type);
    if (ok && field == 1 && type == kLengthDelimited)
      ok = w.Bytes(&features) && ParseFeatures(features, out);
    else if (ok)
      ok = w.Skip(type);
  }
  if (!ok) *err = "malformed tf.train.Example";
  return ok;
}

std::string SerializeDatum(const Datum& d) {
  std::string out;
  auto put_int = [&](int field, int64_t v) {
    PutTag(&out, field, kVarint);
    PutVarint(&out, static_cast<uint64_t>(v));
  };
  if (d.channels) put_int(1, d.channels);
  if (d.height) put_int(2, d.height);
  if (d.width) put_int(3, d.width);
  PutBytes(&out, 4, d.data);
  put_int(5, d.label);
  if (d.encoded) put_int(7, 1);
  return out;
}

bool ParseDatum(std::string_view data, Datum* out, std::string* err) {
  *out = Datum();
  Wire w(data);
  int field, type;
  while (!w.done()) {
    uint64_t v = 0;
    bool ok = w.Tag(&field, &type);
    if (ok && field == 4 && type == kLengthDelimited) {
      ok = w.Bytes(&out->data);
    } else if (ok && type == kVarint && (field <= 3 || field == 5 || field == 7)) {
      ok = w.Varint(&v);
      int32_t i = static_cast<int32_t>(v);
      if (field == 1) out->channels = i;
      if (field == 2) out->height = i;
      if (field == 3) out->width = i;
      if (field == 5) out->label = i;
      if (field == 7) out->encoded = v != 0;
    } else if (ok) {
      ok = w.Skip(type);
    }
    if (!ok) {
      *err = "malformed caffe.Datum";
      return false;
    }
  }
  return true;
}

}  // namespace hbw::data
