// Measures configurations of a task on this machine, in two steps: a Builder (builder.h) builds
// each candidate in parallel into an exported module, then a SandboxRunner (sandbox_runner.h)
// loads and times the batch in a fresh child process against the reference output.
//
// The inputs are uniform random arrays from a fixed seed, made once per task; the reference is
// the output of the operator's default schedule from ops/ on them, computed once in this process.
//
//   Measurer measurer(task, MeasureOptions{});
//   std::vector<MeasureResult> results = measurer.measure({Candidate::from_index(3), Candidate::from_index(9)});
//
// It is the "hardware" measure source of measure_source.h.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/ndarray.h"
#include "search/measure/builder.h"
#include "search/measure/measure_result.h"
#include "search/measure/measure_source.h"
#include "search/measure/runner.h"
#include "search/task/task.h"
#include "target/target.h"

namespace tessel::search {

struct MeasureOptions {
  int warmup = 1;
  int repeats = 5;
  double timeout_s = 10;
  int threads = 2;          // kernel worker threads
  int compile_threads = 2;  // parallel builds
  // AutoTVM's enable_cpu_cache_flush: each sample is one call after the inputs but the first (a
  // layer's weights) are evicted from the caches, as in a model, whose other layers evict them
  // between two calls of this one; its first input (the activation) stays where the previous
  // call left it. Measures what a tuned model runs rather than a layer looping hot. x86 only.
  bool flush_cache = false;
  uint64_t input_seed = 2018;
  std::string backend = "llvm_cpu";
  nlohmann::json backend_params = nullptr;  // the back end plugin's parameters (registry-checked)
  std::optional<Target> target;             // what to build for (kind: `backend`); unset: the host
};

// The back end in a run's label, so that runs whose code was generated differently never resume
// each other: "" for the default back end with its default parameters, else its name with the
// parameters that differ from their defaults, e.g. "c_source" or "llvm_cpu{opt_level=1}". Throws
// UserError for an unknown back end.
std::string backend_label(const std::string& backend, const nlohmann::json& params);

// Largest difference from the reference accepted for a reduction over `reduction_size` products
// of inputs in [-1, 1], summed in another order.
double result_tolerance(int64_t reduction_size);

class Measurer : public MeasureSource {
 public:
  // Builds the inputs and the reference; throws UserError for bad options.
  Measurer(const Task& task, MeasureOptions options);
  ~Measurer() override;

  std::vector<MeasureResult> measure(const std::vector<Candidate>& candidates) const override;
  std::string name() const override { return "hardware"; }

  const NDArray& reference() const { return reference_; }
  const std::vector<NDArray>& inputs() const { return inputs_; }

 private:
  const Task& task_;
  MeasureOptions options_;
  std::vector<NDArray> inputs_;
  NDArray reference_;
  std::unique_ptr<Builder> builder_;
  std::unique_ptr<Runner> runner_;
};

}  // namespace tessel::search
