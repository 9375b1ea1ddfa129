// Runs an optimized graph (passes/graph) for real: one compiled kernel per fused group
// (ops/graph/fused_kernel.h: the anchor's default schedule with its element-wise consumers in
// its output loop), every value computed at run time in the storage the memory plan gave it, so
// values with disjoint lifetimes share buffers. What `tessel compile` will export as a module;
// the unfused executor (ops/graph/unfused_executor.h) is its reference in the tests.
//
//   graph::OptimizedGraph opt = graph::optimize_graph(frontend::import_onnx("resnet18.onnx"));
//   FusedExecutor exec(opt);
//   std::vector<NDArray> out = exec.run({{"input", image}});
//   for (const auto& k : exec.kernels()) std::cout << k.name << " " << k.schedule << "\n";
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "passes/graph/graph_pass.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel {

class FusedExecutor {
 public:
  // What one compiled kernel is: its function name, the operators it fuses, the schedule it used.
  struct KernelInfo {
    std::string name;
    std::vector<std::string> ops;
    std::string schedule;  // "default (conv2d_nchw)": the anchor's default schedule, by tag
  };

  // Compiles every fused group of `graph` (one per operator when "fuse" did not run; the memory
  // plan is made here when "plan_memory" did not run). Throws UserError naming the node a kernel
  // cannot be built for.
  explicit FusedExecutor(const graph::OptimizedGraph& graph, const Target& target = Target::host());
  ~FusedExecutor();

  // Runs the graph on one array per graph input, by name, of the input's shape and element type
  // (UserError otherwise). Returns the graph outputs, in order, as arrays of their own.
  std::vector<NDArray> run(const std::map<std::string, NDArray>& inputs);

  const std::vector<KernelInfo>& kernels() const { return infos_; }
  size_t num_steps() const { return steps_.size(); }
  double compile_seconds() const { return compile_seconds_; }
  const graph::MemoryPlan& memory_plan() const { return plan_; }

 private:
  struct Step {
    const CompiledFunction* kernel;
    std::vector<graph::ValueId> args;  // inputs, then the output
  };
  void* address(graph::ValueId v);

  graph::Graph graph_;
  graph::MemoryPlan plan_;
  std::vector<std::unique_ptr<CompiledFunction>> functions_;
  std::vector<KernelInfo> infos_;
  std::vector<Step> steps_;
  std::vector<NDArray> storage_;              // per storage id of the plan
  std::map<graph::ValueId, NDArray> inputs_;  // during run
  double compile_seconds_ = 0;
};

}  // namespace tessel
