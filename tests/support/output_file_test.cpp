// Output files written whole or not at all (support/output_file.h): a write that fails — a
// file-size limit standing in for a full disk, a missing folder, /dev/full — throws UserError
// naming the file and leaves the earlier file untouched and no temporary behind; standard output
// that could not be written is reported, not taken for success.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "support/error.h"
#include "support/output_file.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("tessel_output_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path), {})); }
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `body` in a child process and returns its exit status (-1 if it did not exit normally).
template <typename Body>
int in_child(const Body& body) {
  std::cout.flush();
  pid_t pid = ::fork();
  if (pid == 0) {
    int status = 0;
    try {
      status = body();
    } catch (...) {
      status = 100;
    }
    std::_Exit(status);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a file is written whole and replaces the earlier one", "[support][output]") {
  TempDir dir;
  fs::path file = dir.path / "summary.md";
  write_file_atomically(file.string(), "first\n");
  write_file_atomically(file.string(), [](std::ostream& out) { out << "second " << 2 << "\n"; });
  CHECK(read(file) == "second 2\n");
  CHECK(dir.entries() == 1);  // no temporary left
  CHECK((fs::status(file).permissions() & fs::perms::others_read) != fs::perms::none);  // not mkstemp's 0600
}

TEST_CASE("a write that fails midway leaves the earlier file and no temporary", "[support][output]") {
  TempDir dir;
  fs::path file = dir.path / "curves.csv";
  write_file_atomically(file.string(), "old contents\n");
  // A file-size limit makes write() fail with EFBIG after 4 KiB, as a full disk fails it with ENOSPC.
  int status = in_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomically(file.string(), std::string(100000, 'x'));
    } catch (const UserError& e) {
      std::string message = e.what();
      return message.find("cannot write '" + file.string() + "': File too large") != std::string::npos ? 0 : 2;
    }
    return 1;
  });
  CHECK(status == 0);
  CHECK(read(file) == "old contents\n");
  CHECK(dir.entries() == 1);
}

TEST_CASE("a missing folder, a folder in the way and /dev/full are errors naming the path", "[support][output]") {
  TempDir dir;
  CHECK_THROWS_WITH(write_file_atomically((dir.path / "no/such/dir/x.json").string(), "{}"),
                    Catch::Contains("cannot write '" + (dir.path / "no/such/dir/x.json").string() + "'") &&
                        Catch::Contains("No such file or directory"));
  CHECK_THROWS_WITH(write_file_atomically(dir.path.string(), "{}"), Catch::Contains("it is a folder"));
  // Not a regular file: written in place (a rename would replace the device), the write checked.
  CHECK_THROWS_WITH(write_file_atomically("/dev/full", "data\n"),
                    Catch::Contains("cannot write '/dev/full': No space left on device"));
  CHECK_NOTHROW(write_file_atomically("/dev/null", "data\n"));
  CHECK(fs::is_character_file("/dev/full"));
}

TEST_CASE("standard output that could not be written is reported", "[support][output]") {
  auto write_to = [](const char* device) {
    return in_child([device] {
      int fd = ::open(device, O_WRONLY);
      ::dup2(fd, STDOUT_FILENO);
      std::cout << std::string(10000, 'x') << "\n";
      std::printf("and C stdio too\n");
      try {
        finish_stdout();
      } catch (const UserError& e) {
        return std::string(e.what()).find("cannot write to standard output") != std::string::npos ? 2 : 3;
      }
      return 0;
    });
  };
  CHECK(write_to("/dev/full") == 2);
  CHECK(write_to("/dev/null") == 0);
}
