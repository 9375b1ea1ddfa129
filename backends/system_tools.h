// Running the system's compiler and linker for back ends: scratch directories and tool processes
// whose output is captured for error messages. Tools are started with posix_spawn, never through
// a shell, so paths need no quoting.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace tessel {

// A fresh directory under $TMPDIR (default /tmp) named <prefix>XXXXXX, removed with its contents
// when the object goes, unless keep() was called (to leave files an error message points to).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// Runs argv[0] (searched in PATH) with stdout and stderr written to `log`; returns its exit status
// (128 + signal if killed), or -1 if it could not be started.
int run_tool(const std::vector<std::string>& argv, const std::filesystem::path& log);

// "cc -O2 -o x.so x.c": argv joined by spaces, for messages.
std::string command_line(const std::vector<std::string>& argv);

// The whole file (empty if it cannot be read); for showing tool logs.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace tessel
