// The sandboxed measurement of built kernels in tessel-runner processes
// (search/measure/sandbox_runner.h).
#include "search/measure/sandbox_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>

#include "runtime/tensor_file.h"
#include "support/error.h"
#include "support/install_paths.h"

extern char** environ;

namespace tessel::search {

namespace {

using Clock = std::chrono::steady_clock;

// A descriptor closed when the object goes.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// A copy of `fd` numbered above the runner's fixed descriptors, so that placing the three of them
// at 3, 4 and 5 in the child never overwrites one before it is placed; close-on-exec here.
int above_fixed_fds(int fd) {
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  if (moved < 0) throw InternalError(detail::concat("sandbox: fcntl failed: ", std::strerror(errno)));
  return moved;
}

int memfd_with(const std::string& name, const std::string& bytes) {
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) throw InternalError(detail::concat("sandbox: memfd_create failed: ", std::strerror(errno)));
  size_t put = 0;
  while (put < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + put, bytes.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      throw InternalError(detail::concat("sandbox: writing the runner request failed: ", std::strerror(errno)));
    }
    put += static_cast<size_t>(n);
  }
  return fd;
}

// A started runner. Destruction kills and reaps it if it is still running, so no child survives
// an exception on the way.
class RunnerProcess {
 public:
  RunnerProcess(const std::string& program, int request_fd, int tensors_fd, int result_fd) {
    Fd request(above_fixed_fds(request_fd)), tensors(above_fixed_fds(tensors_fd)), result(above_fixed_fds(result_fd));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, request.fd, runner::kRequestFd);
    posix_spawn_file_actions_adddup2(&actions, tensors.fd, runner::kTensorsFd);
    posix_spawn_file_actions_adddup2(&actions, result.fd, runner::kResultFd);
    // Kernels have no business printing; keep the tools' stdout (e.g. --json lines) clean.
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::string protocol = std::to_string(runner::kProtocolVersion), parent = std::to_string(getpid());
    std::vector<char*> argv = {const_cast<char*>(program.c_str()), const_cast<char*>("--protocol"), protocol.data(),
                               const_cast<char*>("--parent"), parent.data(), nullptr};
    int rc = posix_spawn(&pid_, program.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0)
      user_error("cannot start the measurement runner '", program, "': ", std::strerror(rc),
                 "; rebuild or reinstall Tessel");
  }
  ~RunnerProcess() {
    if (pid_ > 0) kill_and_reap();
  }
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  int reap() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }
  int kill_and_reap() {
    kill(pid_, SIGKILL);
    return reap();
  }

 private:
  pid_t pid_ = -1;
};

MeasureResult failure(TrialStatus status, std::string error) {
  MeasureResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

MeasureResult from_record(const runner::ResultRecord& w) {
  MeasureResult r;
  switch (static_cast<runner::Outcome>(w.outcome)) {
    case runner::Outcome::Ok: r.status = TrialStatus::Ok; break;
    case runner::Outcome::WrongResult: r.status = TrialStatus::WrongResult; break;
    default: r.status = TrialStatus::RuntimeError;
  }
  r.timing = TimingStats{w.median_us, w.min_us, w.max_us, w.spread_pct, w.repeats};
  r.max_abs_err = w.max_abs_err;
  r.error = w.error_text();
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

std::string find_runner_program() {
  std::filesystem::path program = installed_program(runner::kProgramName);
  if (program.empty())
    user_error("cannot find the measurement runner '", runner::kProgramName, "' beside libtessel (in its folder or in ",
               "../bin): rebuild Tessel (it is built with libtessel) or reinstall it");
  return program.string();
}

}  // namespace

SandboxRunner::SandboxRunner(const std::vector<NDArray>& inputs, const NDArray& reference, RunOptions options)
    : options_(options), program_(find_runner_program()) {
  TESSEL_CHECK(options_.repeats >= 1 && options_.warmup >= 0 && options_.timeout_s > 0 && options_.threads >= 1,
               "bad run options");
  std::vector<NamedArray> arrays;
  for (size_t i = 0; i < inputs.size(); ++i) arrays.push_back({"input" + std::to_string(i), inputs[i]});
  arrays.push_back({runner::kReferenceName, reference});
  tensors_fd_ = memfd_create("tessel-task-data", MFD_CLOEXEC);
  if (tensors_fd_ < 0) throw InternalError(detail::concat("sandbox: memfd_create failed: ", std::strerror(errno)));
  try {
    write_tensors(tensors_fd_, arrays, "the measurement's shared inputs");
  } catch (...) {
    close(tensors_fd_);
    throw;
  }
}

SandboxRunner::~SandboxRunner() { close(tensors_fd_); }

std::vector<MeasureResult> SandboxRunner::run(const std::vector<runner::KernelRef>& kernels) const {
  std::vector<MeasureResult> results(kernels.size());
  for (size_t next = 0; next < kernels.size();) next = run_child(kernels, next, results);
  return results;
}

size_t SandboxRunner::run_child(const std::vector<runner::KernelRef>& kernels, size_t first,
                                std::vector<MeasureResult>& results) const {
  runner::Request request{options_.threads, options_.warmup, options_.repeats, options_.tolerance, options_.flush_cache,
                          {kernels.begin() + static_cast<std::ptrdiff_t>(first), kernels.end()}};
  Fd request_fd(memfd_with("tessel-runner-request", request.to_json()));
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw InternalError(detail::concat("sandbox: pipe failed: ", std::strerror(errno)));
  Fd from_runner(pipe_fds[0]);
  std::optional<RunnerProcess> child;
  {
    Fd to_parent(pipe_fds[1]);  // the parent's copy closes once the child has its own
    child.emplace(program_, request_fd.fd, tensors_fd_, to_parent.fd);
  }
  auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.timeout_s));
  auto deadline = Clock::now() + timeout;
  size_t next = first;
  while (next < kernels.size()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd watch{from_runner.fd, POLLIN, 0};
    int ready = poll(&watch, 1, static_cast<int>(std::max<int64_t>(left, 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      child->kill_and_reap();
      results[next++] = failure(TrialStatus::Timeout, detail::concat("no result within ", options_.timeout_s,
                                                                     " s; the kernel was killed"));
      return next;
    }
    runner::ResultRecord w;
    if (!read_record(from_runner.fd, w)) {
      results[next++] = failure(TrialStatus::Crash, describe_exit(child->reap()));
      return next;
    }
    if (w.position == runner::kSetupFailed)
      user_error("the measurement runner could not start: ", w.error_text());
    TESSEL_CHECK(first + w.position == next, "sandbox: result ", w.position, " arrived while expecting ", next - first);
    results[next++] = from_record(w);
    deadline = Clock::now() + timeout;
  }
  child->reap();
  return next;
}

}  // namespace tessel::search
