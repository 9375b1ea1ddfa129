// Measures built kernels on this machine so that generated code which crashes, hangs or computes
// garbage cannot take the tuner down: each batch runs in a freshly started `tessel-runner` process
// (runtime/runner/protocol.h) that links only libtessel_runtime.so and loads the kernels from their
// exported libraries. Nothing of this process (JIT code, LLVM, an OpenMP runtime, thread-pool or
// lock state) reaches the child, so kernels behave as in a deployed module.
//
// The inputs and the reference are written once, at construction, into shared memory (a memfd)
// that every runner maps copy-on-write; nothing is copied per candidate. The runner reports each
// kernel's result through a pipe as soon as it has it. A kernel that reports nothing within the
// time limit is a Timeout and its runner is killed; a runner that dies mid-kernel marks that kernel
// a Crash (signal or exit status in the message). Either way a fresh runner takes over the rest of
// the batch. Each kernel first runs once on the inputs into an output filled with NaN and is
// checked against the reference; only a correct kernel is timed (warm-up calls, then `repeats`
// samples of at least ~1 ms each: support/timing.h). No child outlives its batch or the tuner.
#pragma once
#include <string>
#include <vector>

#include "runtime/ndarray.h"
#include "search/measure/runner.h"

namespace tessel::search {

class SandboxRunner : public Runner {
 public:
  // `inputs` are the kernels' leading arguments; the last argument is an output shaped like
  // `reference`. Throws UserError if the tessel-runner program cannot be found.
  SandboxRunner(const std::vector<NDArray>& inputs, const NDArray& reference, RunOptions options);
  ~SandboxRunner() override;
  SandboxRunner(const SandboxRunner&) = delete;
  SandboxRunner& operator=(const SandboxRunner&) = delete;

  std::vector<MeasureResult> run(const std::vector<runner::KernelRef>& kernels) const override;

 private:
  // Measures kernels[first..] in one runner until it finishes, dies or times out; returns the index
  // of the first kernel it did not settle.
  size_t run_child(const std::vector<runner::KernelRef>& kernels, size_t first,
                   std::vector<MeasureResult>& results) const;

  RunOptions options_;
  int tensors_fd_ = -1;  // the memfd holding the inputs and the reference
};

}  // namespace tessel::search
