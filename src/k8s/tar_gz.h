// tar.gz archives made and unpacked in process, for the Kubernetes backend:
// the case's stage directory travels into the pod as one (the pod unpacks
// it with `tar -x -z -o`, GNU tar or busybox), and the pod's result files
// come back as one (made by the pod's `tar -c -z -h`). Doing this here
// instead of starting tar and gzip saves four processes per job.
//
// The archives written are POSIX ustar (as `tar --format=ustar` writes),
// gzip-compressed at zlib's default level, with GNU 'L'/'K' records for a
// name or link target that does not fit the ustar name and prefix fields.
// Read are ustar, GNU (long-name records, base-256 numbers) and pax
// archives (extended headers are followed for path, linkpath and size, and
// otherwise skipped), with any number of concatenated gzip members.
//
// Pure functions over memory and the file system; thread-safe (no globals;
// the umask is neither read nor changed).
#pragma once

#include <string>

#include "util/status.h"

namespace hb {

// The tar.gz of everything under `dir`, as `tar -c -z -C dir .` would pack
// it (less the entry for `dir` itself): folders, regular files and symbolic
// links (stored as links, not followed), each folder's entries sorted by
// name, names relative to `dir` ("a/b.txt", "a/" for a folder). Modes
// (permission bits), modification times and numeric owners are kept.
// Sockets, FIFOs and devices are left out. An unreadable file or folder, or
// a file that shrinks while it is read, is an error naming it.
Result<std::string> PackDirectoryTarGz(const std::string& dir);

// Unpacks the folders and regular files of a tar.gz into `dir` (created if
// missing), with their permission bits (less the umask; never setuid,
// setgid or sticky) and, for files, their modification times. An existing
// file of the same name is replaced; existing folders are kept as they are.
//
// The whole archive is read and checked before anything is written, so a
// refused or damaged archive writes nothing: an absolute name or a ".."
// component, a symbolic or hard link, a device, FIFO or unknown entry type,
// bad gzip data (checksums included), a bad header checksum or a truncated
// archive are errors naming the entry (for damage, the entry before it).
// The messages call `dir` "the stage directory", which is what hetbench
// unpacks into. Unpacking never follows a symbolic link found in `dir`: a
// name that would go through one is an error (what was unpacked before it
// stays). The archive is decompressed twice (check, then write) and never
// held whole in memory.
Status ExtractTarGz(const std::string& archive, const std::string& dir);

}  // namespace hb
