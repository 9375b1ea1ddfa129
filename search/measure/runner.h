// The second half of measurement: a Runner loads built kernels (builder.h: exported modules) and
// measures them against a task's reference output. The SandboxRunner (sandbox_runner.h) runs them
// on this machine in a fresh child process; a runner on another MPI rank or a device harness is
// another implementation of this interface. The Measurer (measurer.h) joins a Builder and a Runner
// into the "hardware" measure source the tuner sees (measure_source.h).
#pragma once
#include <vector>

#include "runtime/runner/protocol.h"
#include "search/measure/measure_result.h"

namespace tessel::search {

struct RunOptions {
  int warmup = 1;           // untimed calls after the correctness check
  int repeats = 5;          // timed samples
  double timeout_s = 10;    // per kernel, from the end of the previous one
  int threads = 2;          // worker threads of the kernels' parallel loops
  double tolerance = 1e-3;  // largest |output - reference| accepted
  bool flush_cache = false; // each sample one call, the inputs but the first evicted before it
};

class Runner {
 public:
  virtual ~Runner() = default;
  // One result per kernel, in order, each Ok (with timing), WrongResult, Crash, Timeout or
  // RuntimeError. Kernel failures are results, never exceptions; an exception means the runner
  // itself cannot work (e.g. its program is missing).
  virtual std::vector<MeasureResult> run(const std::vector<runner::KernelRef>& kernels) const = 0;
};

}  // namespace tessel::search
