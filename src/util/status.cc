#include "util/status.h"

namespace hb {

std::string SourceMark::str() const {
  if (file.empty()) return "";
  std::string s = file;
  if (line > 0) {
    s += ':';
    s += std::to_string(line);
    if (column > 0) {
      s += ':';
      s += std::to_string(column);
    }
  }
  return s;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return err_ ? err_->msg : kEmpty;
}

const SourceMark& Status::mark() const {
  static const SourceMark kNone;
  return err_ ? err_->mark : kNone;
}

std::string Status::str() const {
  if (!err_) return "OK";
  if (err_->mark.known()) return err_->mark.str() + ": " + err_->msg;
  return err_->msg;
}

Status Status::Prefixed(const std::string& context) const {
  if (!err_) return *this;
  return Status(context + ": " + err_->msg, err_->mark);
}

}  // namespace hb
