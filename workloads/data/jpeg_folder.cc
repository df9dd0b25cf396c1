// JPEG folders in ImageNet's train layout: one sub-folder per class (named
// like a WordNet id, n00000000..), one .JPEG file per sample. The class id
// of a folder is its position in sorted order, as torchvision's
// ImageFolder assigns it.
#include <cctype>
#include <cstdio>

#include "data/file_util.h"
#include "data/formats.h"
#include "data/jpeg.h"
#include "data/record.h"

namespace hbw::data {
namespace {

std::string ClassName(int64_t label) {
  char name[32];
  std::snprintf(name, sizeof name, "n%08lld", static_cast<long long>(label));
  return name;
}

bool IsJpegName(const std::string& name) {
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = name.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == "jpeg" || ext == "jpg";
}

class JpegFolderReader : public Reader {
 public:
  JpegFolderReader(std::vector<std::string> paths, std::vector<int64_t> labels, const SampleSpec& spec,
                   const ReadOptions& opt)
      : paths_(std::move(paths)), labels_(std::move(labels)), spec_(spec), opt_(opt) {}
  size_t size() const override { return paths_.size(); }
  size_t bytes_read() const override { return bytes_.Get(); }

  std::variant<Sample, Error> Read(size_t index) override { return ReadVia(this, index); }
  std::optional<Error> ReadInto(size_t index, Sample* out) override {
    if (index >= paths_.size()) return Error{"sample index " + std::to_string(index) + " out of range"};
    thread_local std::string bytes;
    std::string err;
    if (!ReadFile(paths_[index], &bytes, &err)) return Error{err};
    bytes_.Add(bytes.size());
    if (!opt_.decode) *out = Sample();
    if (opt_.decode && !DecodeImageJpeg(spec_, bytes, labels_[index], out, &err))
      return Error{paths_[index] + ": " + err};
    return std::nullopt;
  }

 private:
  std::vector<std::string> paths_;
  std::vector<int64_t> labels_;
  SampleSpec spec_;
  ReadOptions opt_;
  ByteCounter bytes_;
};

}  // namespace

std::optional<Error> GenerateJpegFolder(const std::string& dir, const SampleSpec& spec, size_t count, uint64_t seed) {
  std::string err, jpeg;
  // Every class gets its folder, so folder positions are the class ids.
  for (int c = 0; c < spec.num_classes; ++c)
    if (!MakeDirs(JoinPath(dir, ClassName(c)), &err)) return Error{err};
  Dims d = DimsOf(spec);
  for (size_t i = 0; i < count; ++i) {
    RawSample raw = MakeRawSample(spec, i, count, seed);
    char name[64];
    std::snprintf(name, sizeof name, "%s_%08zu.JPEG", ClassName(raw.label).c_str(), i);
    std::string path = JoinPath(JoinPath(dir, ClassName(raw.label)), name);
    if (!EncodeJpeg(raw.image.data(), int(d.h), int(d.w), kJpegQuality, &jpeg, &err) || !WriteFile(path, jpeg, &err))
      return Error{path + ": " + err};
  }
  return std::nullopt;
}

OpenResult OpenJpegFolder(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt) {
  std::vector<std::string> classes, files, paths;
  std::vector<int64_t> labels;
  std::string err;
  if (!ListDir(dir, true, "", &classes, &err)) return Error{err};
  for (size_t c = 0; c < classes.size(); ++c) {
    std::string sub = JoinPath(dir, classes[c]);
    if (!ListDir(sub, false, "", &files, &err)) return Error{err};
    for (const auto& f : files) {
      if (!IsJpegName(f)) continue;
      paths.push_back(JoinPath(sub, f));
      labels.push_back(static_cast<int64_t>(c));
    }
  }
  if (paths.empty()) return Error{dir + ": no class folders with .JPEG files"};
  return std::unique_ptr<Reader>(new JpegFolderReader(std::move(paths), std::move(labels), spec, opt));
}

}  // namespace hbw::data
