// Guarded calls into plugins (support/watchdog.h): past its time limit a call ends the process with
// exit status 2 and a message naming it; one that returns in time leaves nothing behind; a crash
// inside says where before the process dies by its signal; foreign exceptions name the call.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <string>
#include <thread>

#include "support/error.h"
#include "support/watchdog.h"
#include "tests/crash_for_test.h"

using namespace tessel;

namespace {

struct ChildResult {
  int status = 0;  // raw waitpid status
  std::string err;  // what the child wrote to stderr
};

// Runs `body` in a child process whose stderr is captured; the child exits 0 if `body` returns.
template <typename Body>
ChildResult in_child(const Body& body) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    body();
    std::_Exit(0);
  }
  ::close(pipe_fds[1]);
  ChildResult result;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) result.err.append(buffer, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  ::waitpid(pid, &result.status, 0);
  return result;
}

void sleep_s(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

}  // namespace

TEST_CASE("a call past its time limit ends the process with status 2, naming it", "[support][watchdog]") {
  auto start = std::chrono::steady_clock::now();
  ChildResult r = in_child([] { call_plugin("search strategy 'slow' proposing a batch", 0.3, [] { sleep_s(30); }); });
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(WIFEXITED(r.status));
  CHECK(WEXITSTATUS(r.status) == 2);
  CHECK(r.err.find("tessel: search strategy 'slow' proposing a batch did not return within 0.3 s") == 0);
  CHECK(took < 10);
}

TEST_CASE("calls that return in time, nested or one after another, are left alone", "[support][watchdog]") {
  ChildResult r = in_child([] {
    for (int i = 0; i < 20; ++i) call_plugin("quick", 0.2, [] { sleep_s(0.02); });
    call_plugin("outer", 0.5, [] { call_plugin("inner", 0, [] { sleep_s(0.1); }); });
    call_plugin("no limit", 0, [] { sleep_s(0.4); });
    sleep_s(0.5);  // the expired deadlines of finished calls must not fire
  });
  CHECK(WIFEXITED(r.status));
  CHECK(WEXITSTATUS(r.status) == 0);
  CHECK(r.err.empty());
  // The innermost limit counts: a short inner call in a long outer one.
  r = in_child([] { call_plugin("outer", 60, [] { call_plugin("cost model 'stuck' fit", 0.2, [] { sleep_s(30); }); }); });
  CHECK(WEXITSTATUS(r.status) == 2);
  CHECK(r.err.find("cost model 'stuck' fit did not return") != std::string::npos);
}

TEST_CASE("a crash inside a guarded call says where, then dies by its signal", "[support][watchdog]") {
  ChildResult r = in_child([] {
    call_plugin("search strategy 'crashy' proposing a batch", 60, [] { test::segfault_for_test(); });
  });
  REQUIRE(WIFSIGNALED(r.status));
  CHECK(WTERMSIG(r.status) == SIGSEGV);
  CHECK(r.err.find("tessel: crashed with SIGSEGV in search strategy 'crashy' proposing a batch") != std::string::npos);
  // Outside guarded calls the handlers are the ones before: no note.
  r = in_child([] {
    call_plugin("finished", 60, [] {});
    std::raise(SIGSEGV);
  });
  CHECK(WTERMSIG(r.status) == SIGSEGV);
  CHECK(r.err.find("crashed") == std::string::npos);
}

TEST_CASE("a plugin's own exceptions name the call; Tessel's pass unchanged", "[support][watchdog]") {
  CHECK_THROWS_MATCHES(call_plugin("search strategy 'x' proposing a batch", 0, [] { throw std::out_of_range("index 7"); }),
                       UserError, Catch::Message("search strategy 'x' proposing a batch: index 7"));
  CHECK_THROWS_MATCHES(call_plugin("c", 0, [] { user_error("bad input"); }), UserError, Catch::Message("bad input"));
  CHECK_THROWS_AS(call_plugin("c", 0, [] { throw InternalError("bug"); }), InternalError);
  CHECK(call_plugin("c", 5, [] { return 42; }) == 42);
}
