// The outcome of measuring one candidate kernel: a status, and for a good kernel its timing.
// Every failure is a value, never an exception or a dead tuner: generated code that does not
// compile, crashes, hangs or computes wrong values is recorded as such and the search goes on.
#pragma once
#include <string>

#include "support/timing.h"

namespace tessel::search {

enum class TrialStatus {
  Ok,            // correct results; timing holds the measurement
  CompileError,  // lowering or code generation failed (a schedule the compiler rejects)
  Crash,         // the kernel killed its sandbox process (a signal or an unexpected exit)
  Timeout,       // the kernel ran past the time limit and was killed
  WrongResult,   // the kernel's output differs from the reference beyond the tolerance
  RuntimeError,  // the measurement itself failed inside the sandbox (an exception)
};

const char* status_name(TrialStatus status);
// Inverse of status_name; throws UserError for an unknown name (e.g. from an imported record).
TrialStatus parse_status(const std::string& name);

struct MeasureResult {
  TrialStatus status = TrialStatus::RuntimeError;
  TimingStats timing;        // per call, when status is Ok
  double max_abs_err = 0;    // against the reference, when the kernel ran to completion
  double compile_s = 0;      // lowering + code generation
  std::string error;         // what went wrong, when status is not Ok

  bool ok() const { return status == TrialStatus::Ok; }
  double gflops(double flops) const { return ok() ? flops / timing.median_us * 1e-3 : 0.0; }
};

}  // namespace tessel::search
