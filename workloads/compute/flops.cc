#include "compute/flops.h"

#include <cstdlib>

namespace hbcompute {

namespace {

// Splits on any of `seps`; every part must be an integer >= 0.
bool ParseInts(const std::string& text, const std::string& seps, std::vector<int64_t>* out) {
  out->clear();
  std::string cur;
  for (char ch : text + seps[0]) {
    if (seps.find(ch) == std::string::npos) {
      cur += ch;
      continue;
    }
    char* end = nullptr;
    long long v = std::strtoll(cur.c_str(), &end, 10);
    if (cur.empty() || *end || v < 0) return false;
    out->push_back(v);
    cur.clear();
  }
  return true;
}

struct Named {
  const char* name;
  int64_t c, h, w, k, r, s, stride, pad;
};

// ResNet-50 (torchvision) on 224x224 images: the stem, then for each stage
// (conv2_x..conv5_x) the 3x3 convolution that every block but the first
// repeats (stride 1, at the stage's resolution).
constexpr Named kNamed[] = {
    {"resnet50-conv1", 3, 224, 224, 64, 7, 7, 2, 3},   {"resnet50-layer1", 64, 56, 56, 64, 3, 3, 1, 1},
    {"resnet50-layer2", 128, 28, 28, 128, 3, 3, 1, 1}, {"resnet50-layer3", 256, 14, 14, 256, 3, 3, 1, 1},
    {"resnet50-layer4", 512, 7, 7, 512, 3, 3, 1, 1},
};

}  // namespace

std::string GemmShape::str() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

bool ParseGemm(const std::string& text, GemmShape* shape, std::string* err) {
  std::vector<int64_t> v;
  bool ok = ParseInts(text, ",x", &v) && (v.size() == 1 || v.size() == 3);
  for (int64_t x : v) ok = ok && x >= 1;
  if (!ok) {
    *err = "expected N or M,N,K (positive integers), got '" + text + "'";
    return false;
  }
  if (v.size() == 1) v = {v[0], v[0], v[0]};
  *shape = GemmShape{v[0], v[1], v[2]};
  return true;
}

double GemmFlops(const GemmShape& s) {
  return 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
}

std::string ConvShape::str() const {
  auto i = [](int64_t x) { return std::to_string(x); };
  return "N=" + i(n) + " C=" + i(c) + " H=" + i(h) + " W=" + i(w) + " K=" + i(k) + " R=" + i(r) + " S=" + i(s) +
         " stride " + i(stride) + " pad " + i(pad) + " -> P=" + i(p()) + " Q=" + i(q());
}

std::vector<std::string> NamedConvs() {
  std::vector<std::string> names;
  for (const Named& n : kNamed) names.push_back(n.name);
  return names;
}

bool ParseConv(const std::string& text, int64_t batch, ConvShape* shape, std::string* err) {
  ConvShape s;
  bool found = false;
  for (const Named& n : kNamed) {
    if (text != n.name) continue;
    s = ConvShape{n.name, batch, n.c, n.h, n.w, n.k, n.r, n.s, n.stride, n.pad};
    found = true;
  }
  if (!found) {
    std::vector<int64_t> v;
    if (!ParseInts(text, ",", &v) || v.size() != 9) {
      std::string names;
      for (const auto& n : NamedConvs()) names += (names.empty() ? "" : ", ") + n;
      *err = "expected a name (" + names + ") or N,C,H,W,K,R,S,stride,pad, got '" + text + "'";
      return false;
    }
    s = ConvShape{"", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
  }
  if (s.n < 1 || s.c < 1 || s.h < 1 || s.w < 1 || s.k < 1 || s.r < 1 || s.s < 1 || s.stride < 1) {
    *err = "'" + text + "': N, C, H, W, K, R, S and stride must be at least 1";
    return false;
  }
  if (s.h + 2 * s.pad < s.r || s.w + 2 * s.pad < s.s) {
    *err = "'" + text + "': the filter is larger than the padded input";
    return false;
  }
  *shape = s;
  return true;
}

double ConvFlops(const ConvShape& s) {
  return 2.0 * static_cast<double>(s.n) * static_cast<double>(s.k) * static_cast<double>(s.p()) *
         static_cast<double>(s.q()) * static_cast<double>(s.c) * static_cast<double>(s.r) * static_cast<double>(s.s);
}

}  // namespace hbcompute
