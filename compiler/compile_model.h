// Whole-model compilation: an optimized graph (passes/graph) becomes a deployable module, one
// kernel per fused group (ops/graph/fused_kernel.h: the anchor's default schedule, or its tuned
// configuration from a records database (compiler/group_schedule.h), with its element-wise tail
// in its output loop), the kernel calls in order over the storage ids of the
// static memory plan, and the constants as parameters. Run it in process with executor(), or
// write it as a module folder that runtime/graph_executor.h loads without the compiler.
//
//   graph::OptimizedGraph opt = graph::optimize_graph(frontend::import_onnx("resnet18.onnx"));
//   CompiledModel model = compile_model(opt);    // or, with tuned records applied:
//   search::TunedRecords records = search::TunedRecords::read("runs.db");
//   CompiledModel tuned = compile_model(opt, Target::host(), {&records});
//   for (const auto& node : model.graph["nodes"]) std::cout << node["kernel"] << " " << node["schedule"] << "\n";
//   export_model(model, "out/");                 // kernels.so, graph.json, params.bin
//   std::vector<NDArray> y = model.executor().run({{"input", image}});
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "passes/graph/graph_pass.h"
#include "runtime/graph_executor.h"
#include "runtime/module.h"
#include "runtime/tensor_file.h"
#include "search/tuned_config.h"
#include "target/target.h"

namespace tessel {

struct CompiledModel {
  Module module;                  // the kernels, named fused_0, fused_1, ...
  nlohmann::json graph;           // graph.json (runtime/graph_executor.h)
  std::vector<NamedArray> params;  // the constants the kernels read
  int64_t planned_bytes = 0;       // activation memory of the plan
  int64_t intermediate_bytes = 0;  // the same without buffer reuse
  double compile_seconds = 0;

  GraphExecutor executor() const { return GraphExecutor(module, graph, params, "the compiled model"); }
};

struct CompileOptions {
  CompileOptions(const search::TunedRecords* records = nullptr, bool require_tuned = false)
      : records(records), require_tuned(require_tuned) {}

  // Tuned configurations applied to the groups whose anchor has a workload
  // (compiler/group_schedule.h); null: every group runs its anchor's default schedule.
  const search::TunedRecords* records = nullptr;
  // A group with a workload but no record that applies is a UserError naming the group, the
  // workload and how to tune it.
  bool require_tuned = false;
  // Group workloads (GroupSchedule::workload) whose groups run their default schedule whatever
  // the records hold: tune-model's check of a choice in the model (compiler/model_check.h).
  std::vector<std::string> default_workloads;
};

// Compiles every fused group of `opt` (one per operator when "fuse" did not run; the memory plan
// is made here when "plan_memory" did not run); groups computing the same thing share a kernel.
// Each node of the graph JSON says which schedule its kernel runs ("schedule": the label of
// GroupSchedule, "tuning": its JSON). Throws UserError naming the node a kernel cannot be built for.
CompiledModel compile_model(const graph::OptimizedGraph& opt, const Target& target = Target::host(),
                            const CompileOptions& options = {});

// Writes the module folder (created if needed): kernels.so, graph.json, params.bin. UserError
// naming the path when it cannot be written.
void export_model(const CompiledModel& model, const std::string& folder);

}  // namespace tessel
