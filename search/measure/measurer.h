// Measures configurations of a task on this machine: lowers and compiles a batch of candidates
// in parallel (std::thread workers; the back end's compile is thread-safe), then runs them in the
// sandbox (sandbox.h) against the reference output.
//
// The inputs are uniform random arrays from a fixed seed, made once per task; the reference is
// the output of the operator's default schedule from ops/ on them, computed once in this process.
//
//   Measurer measurer(task, MeasureOptions{});
//   std::vector<MeasureResult> results = measurer.measure({task.space().get(3), task.space().get(9)});
//
// It is the "hardware" measure source of measure_source.h.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/ndarray.h"
#include "search/measure/measure_result.h"
#include "search/measure/measure_source.h"
#include "search/measure/sandbox.h"
#include "search/task.h"

namespace tessel::search {

struct MeasureOptions {
  int warmup = 1;
  int repeats = 5;
  double timeout_s = 10;
  int threads = 2;          // kernel worker threads
  int compile_threads = 2;  // parallel compilations
  uint64_t input_seed = 2018;
  std::string backend = "llvm_cpu";
  nlohmann::json backend_params = nullptr;  // the back end's plugin parameters (null: its defaults)
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

  std::vector<MeasureResult> measure(const std::vector<Config>& configs) const override;
  std::string name() const override { return "hardware"; }

  const NDArray& reference() const { return reference_; }
  const std::vector<NDArray>& inputs() const { return inputs_; }

 private:
  struct Compiled;
  std::vector<Compiled> compile_all(const std::vector<Config>& configs) const;

  const Task& task_;
  MeasureOptions options_;
  std::vector<NDArray> inputs_;
  NDArray reference_;
};

}  // namespace tessel::search
