// File-system helpers with errors as values. Writes that must not leave a
// half-written file behind (reports, job scripts) go through WriteFileAtomic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace hb {

Result<std::string> ReadFile(const std::string& path);
Status WriteFile(const std::string& path, const std::string& content);
// Writes to path.tmp.<pid> then renames over path.
Status WriteFileAtomic(const std::string& path, const std::string& content);
Status MakeDirs(const std::string& path);
Status RemoveTree(const std::string& path);
// RemoveTree for hetbench's own scratch folders (a command's capture
// files), where nothing can be done about a failure but say it: it goes to
// the main log as a warning (util/log.h).
void RemoveScratch(const std::string& path);
// Copies the contents of folder `from` into folder `to` (created if needed).
// Refused when `to` is within `from` (it would copy its own copy).
Status CopyTree(const std::string& from, const std::string& to);
// Copies one file over `to`, streamed (not read whole).
Status CopyFile(const std::string& from, const std::string& to);
// Cuts the file to `size` bytes and appends `marker` (a line saying so).
Status TruncateWithMarker(const std::string& path, uint64_t size, const std::string& marker);
// The size of a regular file; 0 when it is missing or not a file.
uint64_t FileSize(const std::string& path);
bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);  // a folder, or a link to one
// Absolute, lexically normal form of path (relative to the current folder).
std::string AbsPath(const std::string& path);
// True when `path` is `folder` or below it, lexically, after making both
// absolute and normal and resolving the symbolic links of the parts that
// exist (so "stage/../../x" and a link out of the folder are not within).
bool IsWithin(const std::string& path, const std::string& folder);
// folder/name, refused unless the result is within `folder`: the one way a
// path is made from a name that came from outside (a keep_files glob, a
// configuration name).
Result<std::string> SafeJoin(const std::string& folder, const std::string& name);
// folder/names[0]/names[1]/..., where each name is one path component
// (not empty, not "." or "..", no '/', no NUL), refused unless the result
// is within `folder`: how a path is made from the names of a system,
// partition, environment, test or parameter value, so that a name that
// slipped past validation still cannot lead elsewhere.
Result<std::string> SafePath(const std::string& folder, const std::vector<std::string>& names);
// RemoveTree(path), refused unless `path` is strictly below `folder` (the
// root it was made in): every removal of a folder hetbench made.
Status RemoveTreeWithin(const std::string& path, const std::string& folder);
// The folder part of path ("." when there is none), and the last part.
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);
std::string JoinPath(const std::string& a, const std::string& b);

// This host's name ("localhost" when it has none) and the effective user's
// name (the uid when it has none).
std::string ThisHostName();
std::string ThisUserName();

}  // namespace hb
