// The sandboxed measurement of built kernels in tessel-runner processes
// (search/measure/sandbox_runner.h).
#include "search/measure/sandbox_runner.h"

#include <unistd.h>

#include "search/measure/runner_process.h"
#include "support/error.h"

namespace tessel::search {

SandboxRunner::SandboxRunner(const std::vector<NDArray>& inputs, const NDArray& reference, RunOptions options)
    : options_(options) {
  TESSEL_CHECK(options_.repeats >= 1 && options_.warmup >= 0 && options_.timeout_s > 0 && options_.threads >= 1,
               "bad run options");
  std::vector<NamedArray> arrays;
  for (size_t i = 0; i < inputs.size(); ++i) arrays.push_back({"input" + std::to_string(i), inputs[i]});
  arrays.push_back({runner::kReferenceName, reference});
  tensors_fd_ = tensors_memfd(arrays, "the measurement's shared inputs");
}

SandboxRunner::~SandboxRunner() { close(tensors_fd_); }

std::vector<MeasureResult> SandboxRunner::run(const std::vector<runner::KernelRef>& kernels) const {
  std::vector<MeasureResult> results(kernels.size());
  for (size_t next = 0; next < kernels.size();) next = run_child(kernels, next, results);
  return results;
}

size_t SandboxRunner::run_child(const std::vector<runner::KernelRef>& kernels, size_t first,
                                std::vector<MeasureResult>& results) const {
  runner::Request request = runner_request(options_);
  request.kernels.assign(kernels.begin() + static_cast<std::ptrdiff_t>(first), kernels.end());
  RunnerProcess child(request, tensors_fd_);
  size_t next = first;
  while (next < kernels.size()) {
    runner::ResultRecord w;
    if (std::optional<MeasureResult> failed = child.read(w, options_.timeout_s, "the kernel")) {
      results[next++] = *failed;
      return next;
    }
    TESSEL_CHECK(first + w.position == next, "sandbox: result ", w.position, " arrived while expecting ", next - first);
    results[next++] = measure_result_of(w);
  }
  child.finish();
  return next;
}

}  // namespace tessel::search
