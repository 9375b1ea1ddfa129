// Checked, all-or-nothing output files and a checked standard output (support/output_file.h).
#include "support/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "support/error.h"

namespace tessel {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, int error) {
  user_error("cannot write '", path, "': ", std::strerror(error),
             "; check that its folder exists, is writable and has free space");
}

// Writes every byte or returns the errno of the write that failed (0: all written).
int write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// A device, pipe or other non-regular file: written in place, since it cannot be renamed over.
void write_in_place(const std::string& path, const std::string& contents) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail(path, errno);
  int error = write_all(fd, contents);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) fail(path, error);
}

// The permissions a file created the ordinary way would get (mkstemp makes it 0600).
mode_t default_file_mode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && fs::is_directory(status)) user_error("cannot write '", path, "': it is a folder");
  if (fs::exists(status) && !fs::is_regular_file(status)) return write_in_place(path, contents);
  fs::path target(path);
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string temporary = (folder / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) fail(path, errno);
  int error = write_all(fd, contents);
  if (error == 0 && ::fchmod(fd, default_file_mode()) != 0) error = errno;
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(path, error);
  }
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ostringstream contents;
  write(contents);
  write_file_atomically(path, contents.str());
}

void finish_stdout() {
  errno = 0;
  std::cout.flush();
  bool lost = !std::cout;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) lost = true;
  if (lost)
    user_error("cannot write to standard output",
               errno != 0 ? std::string(": ") + std::strerror(errno) : std::string(" (is the disk full?)"),
               "; what was printed is incomplete");
}

}  // namespace tessel
