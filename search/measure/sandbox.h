// Runs compiled candidate kernels in a sandboxed child process, so that generated code which
// crashes, hangs or computes garbage cannot take the tuner down.
//
// One child (fork; it inherits the JIT-compiled code and the input arrays) measures a batch of
// kernels one after the other and reports each result through a pipe as soon as it has it. The
// parent watches the pipe: a kernel that reports nothing within the time limit is a Timeout and
// its child is killed; a child that dies mid-kernel marks that kernel a Crash. Either way a fresh
// child takes over the rest of the batch. Each kernel first runs once on the inputs into an
// output filled with NaN and is checked against the reference; only a correct kernel is timed
// (warm-up calls, then `repeats` samples of at least ~1 ms each: support/timing.h).
//
// Must be called while no other thread of the process is inside LLVM or holds locks a child
// might need (the measurer compiles a whole batch first, then runs it here).
#pragma once
#include <vector>

#include "backends/backend.h"
#include "runtime/ndarray.h"
#include "search/measure/measure_result.h"

namespace tessel::search {

struct SandboxOptions {
  int warmup = 1;          // untimed calls after the correctness check
  int repeats = 5;         // timed samples
  double timeout_s = 10;   // per kernel, from the end of the previous one
  int threads = 2;         // worker threads of the kernels' parallel loops
  double tolerance = 1e-3; // largest |output - reference| accepted
};

class Sandbox {
 public:
  // `inputs` are the kernels' leading arguments; the last argument is an output shaped like
  // `reference`. The arrays are shared with the caller, never written.
  Sandbox(std::vector<NDArray> inputs, NDArray reference, SandboxOptions options);

  // One result per kernel, in order. A null kernel yields a default (RuntimeError) entry the
  // caller overwrites: it stands for a candidate that never compiled.
  std::vector<MeasureResult> run(const std::vector<const CompiledFunction*>& kernels) const;

 private:
  // Measures kernels[first..] in one child until it finishes, dies or times out; returns the
  // index of the first kernel it did not settle.
  size_t run_child(const std::vector<const CompiledFunction*>& kernels, size_t first,
                   std::vector<MeasureResult>& results) const;
  [[noreturn]] void child_main(const std::vector<const CompiledFunction*>& kernels, size_t first, int fd) const;
  MeasureResult measure_in_child(const CompiledFunction& kernel) const;

  std::vector<NDArray> inputs_;
  NDArray reference_;
  SandboxOptions options_;
};

}  // namespace tessel::search
