// Measuring a compiled model against libtorch: what `tessel bench-model` prints and what a model
// experiment (experiments/runner.h) records for each configuration. The model is compiled with the
// graph passes given (and the tuned records, when a database is given), libtorch runs its
// TorchScript file on the same input in the same process, samples alternating; the outputs are
// compared within 1e-4 relative, 1e-5 absolute.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/graph_executor.h"

namespace tessel::tools {

struct ModelBenchOptions {
  std::string model, torchscript, passes, records;  // torchscript "": the .pt beside the model
  int threads = 2, repeats = 10;
  bool require_torchscript = true;  // false: without the .pt, Tessel alone is measured
  // How libtorch prepares its module (benchmarks/baselines/torchscript_model.h): "fastest" (each
  // mode tried, the fastest kept), "as_loaded", "frozen" or "optimized".
  std::string libtorch_mode = "fastest";
  std::string target = "llvm_cpu";  // a CPU target this machine runs; the caller set its benchmark environment
};

// {"model", "tessel_ms", "tessel_spread_pct", "baseline": "libtorch", "baseline_ms", "baseline_spread_pct",
// "speedup", "speedup_low", "speedup_high", "speedup_confidence" (the interval of the median speedup
// of the alternating pairs of samples, support/statistics.h), "max_abs_diff", "max_rel_diff",
// "correct", "threads", "target", "baseline_isa" (the ISA oneDNN, which runs libtorch's
// convolutions, ran), "baseline_mode" (how libtorch prepared its module) and "baseline_mode_trials_ms"
// (each mode's time in the trial that chose it, with "fastest"), "passes", "records", "flops" (the anchors' nominal operations), "tessel_gflops", "peak_gflops" (the machine's FMA peak on the
// threads, median of samples taken between the model's: benchmarks/fma_peak.h)}; without libtorch,
// no baseline keys. UserError for a bad model, TorchScript file or database.
// `after` (when set) sees the result, the executor and the module's graph JSON once measured (the
// command prints its line and a per-kernel profile there).
using AfterBench = std::function<void(const nlohmann::json& result, GraphExecutor&, const nlohmann::json& graph)>;
nlohmann::json bench_compiled_model(const ModelBenchOptions& options, const AfterBench& after = {});

}  // namespace tessel::tools
