// The sandboxed measurement of candidate kernels (search/measure/sandbox.h).
#include "search/measure/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/thread_pool.h"
#include "support/error.h"

namespace tessel::search {

namespace {

using Clock = std::chrono::steady_clock;

// One result as it crosses the pipe: fixed size and below PIPE_BUF, so each write is atomic.
struct WireResult {
  uint32_t position;
  int32_t status;
  double median_us, min_us, max_us, spread_pct, max_abs_err;
  int32_t repeats;
  char error[256];
};
static_assert(sizeof(WireResult) <= PIPE_BUF);

WireResult to_wire(uint32_t position, const MeasureResult& r) {
  WireResult w{};
  w.position = position;
  w.status = static_cast<int32_t>(r.status);
  w.median_us = r.timing.median_us;
  w.min_us = r.timing.min_us;
  w.max_us = r.timing.max_us;
  w.spread_pct = r.timing.spread_pct;
  w.max_abs_err = r.max_abs_err;
  w.repeats = r.timing.repeats;
  std::strncpy(w.error, r.error.c_str(), sizeof(w.error) - 1);
  return w;
}

MeasureResult from_wire(const WireResult& w) {
  MeasureResult r;
  r.status = static_cast<TrialStatus>(w.status);
  r.timing = TimingStats{w.median_us, w.min_us, w.max_us, w.spread_pct, w.repeats};
  r.max_abs_err = w.max_abs_err;
  r.error = std::string(w.error, strnlen(w.error, sizeof(w.error)));
  return r;
}

// Reads one whole record; false at end of file (the writer is gone).
bool read_record(int fd, WireResult& w) {
  auto* bytes = reinterpret_cast<char*>(&w);
  size_t got = 0;
  while (got < sizeof(w)) {
    ssize_t n = read(fd, bytes + got, sizeof(w) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

void write_record(int fd, const WireResult& w) {
  auto* bytes = reinterpret_cast<const char*>(&w);
  size_t put = 0;
  while (put < sizeof(w)) {
    ssize_t n = write(fd, bytes + put, sizeof(w) - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);  // the parent is gone: nobody to report to
    put += static_cast<size_t>(n);
  }
}

MeasureResult failure(TrialStatus status, std::string error) {
  MeasureResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(sig);
    return detail::concat("the kernel was killed by signal SIG", abbrev ? abbrev : "?", " (", strsignal(sig), ")");
  }
  if (WIFEXITED(wait_status))
    return detail::concat("the sandbox exited with status ", WEXITSTATUS(wait_status), " during the kernel");
  return "the sandbox stopped unexpectedly";
}

int reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

Sandbox::Sandbox(std::vector<NDArray> inputs, NDArray reference, SandboxOptions options)
    : inputs_(std::move(inputs)), reference_(std::move(reference)), options_(options) {
  TESSEL_CHECK(options_.repeats >= 1 && options_.warmup >= 0 && options_.timeout_s > 0, "bad sandbox options");
}

std::vector<MeasureResult> Sandbox::run(const std::vector<const CompiledFunction*>& kernels) const {
  std::vector<const CompiledFunction*> compiled;
  std::vector<size_t> positions;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i]) {
      compiled.push_back(kernels[i]);
      positions.push_back(i);
    }
  std::vector<MeasureResult> measured(compiled.size());
  for (size_t next = 0; next < compiled.size();) next = run_child(compiled, next, measured);
  std::vector<MeasureResult> results(kernels.size());
  for (size_t i = 0; i < positions.size(); ++i) results[positions[i]] = std::move(measured[i]);
  return results;
}

size_t Sandbox::run_child(const std::vector<const CompiledFunction*>& kernels, size_t first,
                          std::vector<MeasureResult>& results) const {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw InternalError(detail::concat("sandbox: pipe failed: ", strerror(errno)));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw InternalError(detail::concat("sandbox: fork failed: ", strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
    // A tuner killed outright (SIGKILL) must not leave a hanging candidate spinning forever.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4);
    child_main(kernels, first, fds[1]);
  }
  close(fds[1]);
  auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
  auto deadline = Clock::now() + timeout;
  size_t next = first;
  bool child_alive = true;
  while (next < kernels.size()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd watch{fds[0], POLLIN, 0};
    int ready = poll(&watch, 1, static_cast<int>(std::max<int64_t>(left, 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      kill(pid, SIGKILL);
      reap(pid);
      child_alive = false;
      results[next++] = failure(TrialStatus::Timeout, detail::concat("no result within ", options_.timeout_s,
                                                                     " s; the kernel was killed"));
      break;
    }
    WireResult w;
    if (!read_record(fds[0], w)) {
      results[next++] = failure(TrialStatus::Crash, describe_exit(reap(pid)));
      child_alive = false;
      break;
    }
    TESSEL_CHECK(w.position == next, "sandbox: result ", w.position, " arrived while expecting ", next);
    results[next++] = from_wire(w);
    deadline = Clock::now() + timeout;
  }
  close(fds[0]);
  if (child_alive) reap(pid);
  return next;
}

void Sandbox::child_main(const std::vector<const CompiledFunction*>& kernels, size_t first, int fd) const {
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // a crashing candidate must not spend seconds writing a core file
  // The parent's crash handlers (a test framework's, LLVM's) would report a candidate's crash as
  // their own: a crash here must simply end the child.
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS}) signal(sig, SIG_DFL);
  set_num_threads(options_.threads);
  for (size_t i = first; i < kernels.size(); ++i) write_record(fd, to_wire(static_cast<uint32_t>(i), measure_in_child(*kernels[i])));
  _exit(0);  // no destructors or atexit handlers of the parent's objects
}

MeasureResult Sandbox::measure_in_child(const CompiledFunction& kernel) const {
  try {
    NDArray out = NDArray::empty(reference_.shape(), reference_.dtype());
    for (int64_t i = 0; i < out.numel(); ++i) out.set_double(i, std::numeric_limits<double>::quiet_NaN());
    std::vector<void*> args;
    for (const NDArray& in : inputs_) args.push_back(const_cast<void*>(in.data()));
    args.push_back(out.data());
    kernel.call(args.data());
    MeasureResult r;
    r.max_abs_err = max_abs_diff(out, reference_);
    if (!(r.max_abs_err <= options_.tolerance)) {
      r.status = TrialStatus::WrongResult;
      r.error = detail::concat("max |output - reference| = ", r.max_abs_err, " exceeds the tolerance ",
                               options_.tolerance);
      return r;
    }
    r.timing = measure([&] { kernel.call(args.data()); }, options_.warmup, options_.repeats);
    r.status = TrialStatus::Ok;
    return r;
  } catch (const std::exception& e) {
    return failure(TrialStatus::RuntimeError, e.what());
  }
}

}  // namespace tessel::search
