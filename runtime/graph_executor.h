// The graph executor of deployable models: runs a compiled model (`tessel compile`) from its
// module folder with libtessel_runtime.so alone, no compiler. The folder holds
//   kernels.so   the fused groups' kernels, one exported module (runtime/module.h)
//   graph.json   the kernel calls in order, over storage ids of the static memory plan
//   params.bin   the constants (weights) the kernels read, a tensor file (runtime/tensor_file.h)
// graph.json:
//   {"format": "tessel-graph", "version": 1, "storages": [bytes, ...],
//    "inputs":  [{"name": "input", "dtype": "float32", "shape": [1, 3, 224, 224], "storage": 0}],
//    "outputs": [{"name": "output", "dtype": "float32", "shape": [1, 1000], "storage": 1}],
//    "nodes":   [{"kernel": "fused_0", "ops": ["conv2d", "bias_add", "relu"], "schedule": "default (conv2d_nchw)",
//                 "args": [{"storage": 0}, {"param": "w"}, {"param": "b"}, {"storage": 2}]}, ...]}
// A node may also carry "tuning" (which record its schedule came from), "flops" (its anchor's
// nominal operations), "param_bytes" (the bytes of the params it reads), "prefetches" and
// "prefetch_bytes" (the params it prefetches for a later node: passes/graph/prefetch_weights.cpp),
// for profiles; the executor reads none of them.
// Kernels run on the runtime's thread pool (runtime/thread_pool.h), shared by all of them.
//
//   GraphExecutor exec = GraphExecutor::load("out/");
//   exec.set_input("input", image);
//   exec.run();
//   NDArray y = exec.output(0);
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/tensor_file.h"

namespace tessel {

class GraphExecutor {
 public:
  // Checks that graph, kernels and params agree (every kernel exists and gets the arguments it
  // declares, every param and storage is there and large enough); UserError naming `what` (the
  // folder or file) and the node otherwise.
  GraphExecutor(Module module, const nlohmann::json& graph, std::vector<NamedArray> params, const std::string& what);
  // Loads a module folder; UserError naming the missing or corrupt file.
  static GraphExecutor load(const std::string& folder);

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  const std::string& input_name(size_t i) const { return inputs_.at(i).name; }
  const std::string& output_name(size_t i) const { return outputs_.at(i).name; }
  const std::vector<int64_t>& input_shape(size_t i) const { return inputs_.at(i).shape; }
  const std::vector<int64_t>& output_shape(size_t i) const { return outputs_.at(i).shape; }

  // Copies `value` into the input named `name`; UserError for an unknown name (listing the inputs)
  // or another shape or element type.
  void set_input(const std::string& name, const NDArray& value);
  void run();
  // A copy of output i after run(); UserError if i is out of range.
  NDArray output(size_t i) const;
  // set_input for each, run, and every output.
  std::vector<NDArray> run(const std::map<std::string, NDArray>& inputs);
  // Runs the graph `repeats` times timing each kernel call; per call, in the order of graph.json's
  // "nodes", the median of its times in microseconds (`tessel bench-model --profile`).
  std::vector<double> profile_calls(int repeats);

 private:
  struct Port {
    std::string name;
    ElementType dtype;
    std::vector<int64_t> shape;
    void* data = nullptr;
  };
  struct Call {
    Kernel kernel;
    std::vector<void*> args;
  };
  Module module_;
  std::vector<NamedArray> params_;
  std::vector<NDArray> storage_;
  std::vector<Port> inputs_, outputs_;
  std::vector<Call> calls_;
};

}  // namespace tessel
