// One started tessel-runner child (runtime/runner/protocol.h), shared by the sandboxed
// measurements of kernels (search/measure/sandbox_runner.h) and of whole models
// (search/measure/model_sandbox.h): the request and the tensor file placed at the protocol's
// descriptors, the results read one record at a time with a time limit per record, and no child
// surviving its owner (destruction kills and reaps it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/runner/protocol.h"
#include "runtime/tensor_file.h"
#include "search/measure/runner.h"

namespace tessel::search {

// A request with `options` (threads, warm-up, repeats, tolerance, cache flushing) and nothing to
// measure yet.
runner::Request runner_request(const RunOptions& options);

// The result a runner's record reports (Ok with timing, WrongResult, or RuntimeError with why).
MeasureResult measure_result_of(const runner::ResultRecord& record);

// A kernel or model the runner did not settle: Crash or Timeout, and why.
MeasureResult runner_failure(TrialStatus status, std::string error);

// A memfd holding `arrays` as a tensor file, which every runner maps copy-on-write; the caller
// closes it. `what` names it in errors.
int tensors_memfd(const std::vector<NamedArray>& arrays, const std::string& what);

class RunnerProcess {
 public:
  // Starts the runner on `request`, reading its tensors from `tensors_fd`. Throws UserError if the
  // program cannot be found or started.
  RunnerProcess(const runner::Request& request, int tensors_fd);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // Reads the runner's next record into `record`, waiting at most timeout_s, and returns nullopt;
  // or, when the runner hangs (it is killed) or ends without writing one, the failure of what it was
  // `running` ("the kernel"): Timeout ("no result within 10 s; the kernel was killed") or Crash
  // ("the kernel was killed by signal SIGSEGV (...)", "the sandbox exited with status 3 during the
  // kernel"). Throws UserError when the runner reports that it could not start.
  std::optional<MeasureResult> read(runner::ResultRecord& record, double timeout_s, const std::string& running);
  // Waits for a runner that has written everything to exit.
  void finish();

 private:
  int reap();
  std::string exit_description(const std::string& running);
  pid_t pid_ = -1;
  int from_runner_ = -1;
};

}  // namespace tessel::search
