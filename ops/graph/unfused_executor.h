// Runs a graph for real, one compiled kernel per operator node and nothing fused: each node's
// tensor expression (ir/graph/op.h) is scheduled by its operator's default schedule, lowered and
// compiled by the target's back end, and the graph runs node by node on NDArrays, every value in
// its own array. The baseline the fused, memory-planned graph executor of the coming module
// runtime is measured against, and the path the model and conformance tests run.
//
// Nodes computing the same thing (operator, attributes and input types) share one kernel, so
// a network compiles each distinct layer once.
//
//   graph::Graph g = onnx::import_onnx("resnet18.onnx");
//   UnfusedExecutor exec(g);                          // compiles for the host CPU
//   std::vector<NDArray> out = exec.run({{"input", image}});
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ir/graph/graph.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel::ops {

class UnfusedExecutor {
 public:
  // Verifies `graph` and compiles every operator node (kernels compile in parallel). Throws
  // UserError if the graph is not well-formed or a node cannot be compiled (naming the node);
  // the executor keeps its own copy of the graph.
  explicit UnfusedExecutor(const graph::Graph& graph, const Target& target = Target::host());
  ~UnfusedExecutor();

  // Runs the graph: `inputs` holds one array per graph input, by name, of the input's shape and
  // element type (UserError otherwise, naming the input). Returns the graph outputs, in order,
  // as arrays of their own.
  std::vector<NDArray> run(const std::map<std::string, NDArray>& inputs);

  size_t num_kernels() const { return kernels_.size(); }
  size_t num_steps() const { return steps_.size(); }
  double compile_seconds() const { return compile_seconds_; }

 private:
  // One kernel call: a node output computed from some of the node's inputs.
  struct Step {
    const CompiledFunction* kernel;
    std::vector<graph::ValueId> args;  // the inputs the kernel reads, then the output
  };
  void plan(const Target& target);

  graph::Graph graph_;
  std::vector<std::unique_ptr<CompiledFunction>> kernels_;
  std::vector<Step> steps_;
  std::vector<NDArray> storage_;  // per value id: constants, intermediate results, outputs
  double compile_seconds_ = 0;
};

}  // namespace tessel::ops
