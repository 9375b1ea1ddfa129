// Compiled models (module folders, `tessel compile`) compared and timed against each other in a
// tessel-runner process (runtime/runner/protocol.h), as tune-model checks its choices in the model
// (compiler/model_check.h): the modules run generated code the tuner chose, so they run sandboxed
// like every candidate kernel, and a crash or hang is a result, not a dead tuner.
//
// The runner first runs every model once on the same inputs and compares its outputs with the
// first model's; only if all agree it times them in rounds, each round taking `repeats` samples
// of every model (whole runs) interleaved, starting with the next model each round, so a slow
// moment of a shared machine hits the models alike and a ratio per round compares like with like.
//
//   ModelTimings t = time_models({"tuned/", "untuned/"}, {{"input", image}}, options, 10);
//   if (t.ok()) for (const auto& round : t.round_us) std::cout << round[0] / round[1] << "\n";
#pragma once
#include <string>
#include <vector>

#include "runtime/tensor_file.h"
#include "search/measure/measure_result.h"
#include "search/measure/runner.h"

namespace tessel::search {

struct ModelTimings {
  // Per model: Ok; WrongResult (its outputs differ from the first model's beyond the tolerance);
  // RuntimeError (it does not load or take the inputs); Crash or Timeout (the runner died or hung).
  std::vector<MeasureResult> checks;
  // Per round completed, per model: the median of its samples, in microseconds per run.
  std::vector<std::vector<double>> round_us;
  // Set when the runner died or hung while timing: what happened (the rounds before it are kept).
  std::string failure;

  bool checks_ok() const;     // every model ran and agreed with the first
  bool ok(int rounds) const;  // every check passed and all `rounds` completed
};

// Checks `folders` (at least one) against the first and times them over `rounds` (at least one)
// rounds, on `inputs` (the models' inputs, named as their graphs name them), with `options`'
// threads, warm-up runs, repeats, tolerance and time limit (per result: a check, or one model's
// timing in a round). Throws UserError if the runner cannot be started.
ModelTimings time_models(const std::vector<std::string>& folders, const std::vector<NamedArray>& inputs,
                         const RunOptions& options, int rounds);

}  // namespace tessel::search
