// A started tessel-runner child (search/measure/runner_process.h).
#include "search/measure/runner_process.h"

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

#include "support/error.h"
#include "support/install_paths.h"

extern char** environ;

namespace tessel::search {

namespace {

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

std::string find_runner_program() {
  std::filesystem::path program = installed_program(runner::kProgramName);
  if (program.empty())
    user_error("cannot find the measurement runner '", runner::kProgramName, "' beside libtessel (in its folder or in ",
               "../bin): rebuild Tessel (it is built with libtessel) or reinstall it");
  return program.string();
}

pid_t spawn_runner(const std::string& program, int request_fd, int tensors_fd, int result_fd) {
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
  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0)
    user_error("cannot start the measurement runner '", program, "': ", std::strerror(rc),
               "; rebuild or reinstall Tessel");
  return pid;
}

}  // namespace

MeasureResult runner_failure(TrialStatus status, std::string error) {
  MeasureResult r;
  r.status = status;
  r.error = std::move(error);
  return r;
}

MeasureResult measure_result_of(const runner::ResultRecord& w) {
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

runner::Request runner_request(const RunOptions& options) {
  runner::Request request;
  request.threads = options.threads;
  request.warmup = options.warmup;
  request.repeats = options.repeats;
  request.tolerance = options.tolerance;
  request.flush_cache = options.flush_cache;
  return request;
}

int tensors_memfd(const std::vector<NamedArray>& arrays, const std::string& what) {
  int fd = memfd_create("tessel-task-data", MFD_CLOEXEC);
  if (fd < 0) throw InternalError(detail::concat("sandbox: memfd_create failed: ", std::strerror(errno)));
  try {
    write_tensors(fd, arrays, what);
  } catch (...) {
    close(fd);
    throw;
  }
  return fd;
}

RunnerProcess::RunnerProcess(const runner::Request& request, int tensors_fd) {
  std::string program = find_runner_program();
  Fd request_fd(memfd_with("tessel-runner-request", request.to_json()));
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw InternalError(detail::concat("sandbox: pipe failed: ", std::strerror(errno)));
  from_runner_ = pipe_fds[0];
  Fd to_parent(pipe_fds[1]);  // the parent's copy closes once the child has its own
  try {
    pid_ = spawn_runner(program, request_fd.fd, tensors_fd, to_parent.fd);
  } catch (...) {
    close(from_runner_);
    throw;
  }
}

RunnerProcess::~RunnerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    reap();
  }
  close(from_runner_);
}

int RunnerProcess::reap() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

std::optional<MeasureResult> RunnerProcess::read(runner::ResultRecord& record, double timeout_s,
                                                 const std::string& running) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd watch{from_runner_, POLLIN, 0};
    int ready = poll(&watch, 1, static_cast<int>(std::max<int64_t>(left, 0)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      kill(pid_, SIGKILL);
      reap();
      return runner_failure(TrialStatus::Timeout,
                            detail::concat("no result within ", timeout_s, " s; ", running, " was killed"));
    }
    if (!runner::read_record(from_runner_, record)) return runner_failure(TrialStatus::Crash, exit_description(running));
    if (record.position == runner::kSetupFailed)
      user_error("the measurement runner could not start: ", record.error_text());
    return std::nullopt;
  }
}

std::string RunnerProcess::exit_description(const std::string& running) {
  int wait_status = reap();
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    const char* abbrev = sigabbrev_np(sig);
    return detail::concat(running, " was killed by signal SIG", abbrev ? abbrev : "?", " (", strsignal(sig), ")");
  }
  if (WIFEXITED(wait_status))
    return detail::concat("the sandbox exited with status ", WEXITSTATUS(wait_status), " during ", running);
  return "the sandbox stopped unexpectedly";
}

void RunnerProcess::finish() {
  if (pid_ > 0) reap();
}

}  // namespace tessel::search
