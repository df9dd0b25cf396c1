// Errors are values at module boundaries: a function that can fail
// returns a Status or a Result<T>, never throws across a module.
//
// Status is either OK or an error message. Result<T> is either a T or an
// error Status. Both are [[nodiscard]]: an error is handled (returned,
// reported, or turned into a note) or the compiler says so. An error that comes from a user's file carries a SourceMark
// so the message can name file:line:column. Both are cheap to copy on
// success and are not thread-safe to mutate concurrently (plain values).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace hb {

// A place in a user's file. line and column are 1-based; 0 means unknown.
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;

  bool known() const { return !file.empty(); }
  // "file:line:col", "file:line", "file" or "" depending on what is known.
  std::string str() const;
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  static Status OK() { return Status(); }
  static Status Error(std::string msg) { return Status(std::move(msg), {}); }
  static Status Error(SourceMark mark, std::string msg) { return Status(std::move(msg), std::move(mark)); }

  bool ok() const { return !err_.has_value(); }
  explicit operator bool() const { return ok(); }
  // The bare message, without the location.
  const std::string& message() const;
  const SourceMark& mark() const;
  // "file:line:col: message" when the location is known, else the message.
  std::string str() const;
  // Adds context in front of the message: "context: message".
  Status Prefixed(const std::string& context) const;

 private:
  struct Err {
    std::string msg;
    SourceMark mark;
  };
  Status(std::string msg, SourceMark mark) : err_(Err{std::move(msg), std::move(mark)}) {}
  std::optional<Err> err_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}   // NOLINT: implicit by design
  Result(Status err) : v_(std::move(err)) {}  // NOLINT: must be an error

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace hb
