// Writing output files so that a reader never sees half of one and a failed write is never taken
// for success. Reports, exports and manifests are written whole into a temporary file beside the
// target, flushed to disk, then renamed over it: a full disk, a file-size limit or a missing
// folder leaves the earlier file (or none) and throws UserError naming the file and the cause.
//
//   write_file_atomically(out / "summary.md", [&](std::ostream& o) { o << "# Experiment\n"; });
//
// A path that exists and is not a regular file (/dev/stdout, a pipe, /dev/full) cannot be replaced
// by a rename; it is written in place, every write checked the same way.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace tessel {

// Writes what `write` puts into the stream to `path` as described above. Exceptions from `write`
// propagate and leave nothing behind.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// The same for contents already at hand.
void write_file_atomically(const std::string& path, const std::string& contents);

// Flushes standard output (C++ and C streams) and throws UserError if anything written to it was
// lost: a full disk, /dev/full, a closed pipe reader. Commands end with this, so that a report
// piped into a file that could not be written never exits 0.
void finish_stdout();

}  // namespace tessel
