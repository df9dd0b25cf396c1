// Small POSIX file helpers for the dataset formats: whole-file reads and
// writes, positioned reads, folder listing. Every system call is checked;
// failures come back as messages naming the path. Thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hbw::data {

bool ReadFile(const std::string& path, std::string* out, std::string* err);
bool WriteFile(const std::string& path, std::string_view data, std::string* err);
bool MakeDirs(const std::string& path, std::string* err);
// Reads up to n bytes at `offset`; *got < n only at end of file.
bool PreadFull(int fd, void* buf, size_t n, off_t offset, size_t* got, std::string* err);
// Names of the entries in `dir` (not . and ..), sorted; `dirs` selects
// sub-folders, otherwise regular files whose names end with `suffix`.
bool ListDir(const std::string& dir, bool dirs, const std::string& suffix, std::vector<std::string>* out,
             std::string* err);
std::string ErrnoText(int err);
// "dir/name" without doubling the slash.
std::string JoinPath(const std::string& dir, const std::string& name);

}  // namespace hbw::data
