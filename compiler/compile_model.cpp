// Whole-model compilation and export (compiler/compile_model.h).
#include "compiler/compile_model.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "backends/backend.h"
#include "backends/build_input.h"
#include "ops/graph/fused_kernel.h"
#include "ops/graph/parallel_build.h"
#include "passes/lower/lower.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/registry.h"

namespace tessel {

using graph::FusedGroup;
using graph::ValueId;

namespace {

// The plan of `opt`, made by the plan_memory pass when it did not run.
graph::MemoryPlan memory_plan_of(const graph::OptimizedGraph& opt) {
  if (opt.memory) return *opt.memory;
  graph::OptimizedGraph copy = opt;
  Registry<graph::GraphPass>::instance().create("plan_memory")->run(copy);
  return *copy.memory;
}

// Where the graph JSON finds a value: a param (constant) or a storage id of the plan.
nlohmann::json value_ref(const graph::Graph& g, const graph::MemoryPlan& plan, ValueId v) {
  if (g.constant_value(v)) return {{"param", g.value(v).name}};
  return {{"storage", plan.storage_of.at(v)}};
}

nlohmann::json port(const graph::Graph& g, const graph::MemoryPlan& plan, ValueId v) {
  const graph::TensorType& t = g.value(v).type;
  nlohmann::json p = value_ref(g, plan, v);
  p["name"] = g.value(v).name;
  p["dtype"] = t.dtype.str();
  p["shape"] = t.shape;
  return p;
}

}  // namespace

CompiledModel compile_model(const graph::OptimizedGraph& opt, const Target& target) {
  auto start = std::chrono::steady_clock::now();
  const graph::Graph& g = opt.graph;
  graph::MemoryPlan plan = memory_plan_of(opt);
  CompiledModel model;
  model.planned_bytes = plan.planned_bytes;
  model.intermediate_bytes = plan.intermediate_bytes;
  model.graph = {{"format", "tessel-graph"}, {"version", 1}, {"storages", plan.storage_bytes}};
  for (ValueId v : g.inputs()) model.graph["inputs"].push_back(port(g, plan, v));
  for (ValueId v : g.outputs()) model.graph["outputs"].push_back(port(g, plan, v));
  model.graph["nodes"] = nlohmann::json::array();
  std::vector<ops::GroupKernel> kernels;
  std::unordered_map<std::string, size_t> by_key;
  std::unordered_map<ValueId, bool> param_added;
  for (const FusedGroup& group : fused_groups(opt)) {
    for (ValueId out : group.outputs) {
      ops::GroupKernel k = ops::group_kernel(g, group.nodes, out);
      auto [it, added] = by_key.emplace(k.key, kernels.size());
      nlohmann::json node = {{"kernel", "fused_" + std::to_string(it->second)}, {"ops", nlohmann::json::array()}};
      for (graph::NodeId n : group.nodes) node["ops"].push_back(g.node(n).op);
      node["schedule"] = "default (" + (k.anchor.defined() ? k.anchor->tag : k.output->tag) + ")";
      for (ValueId v : k.inputs) {
        node["args"].push_back(value_ref(g, plan, v));
        if (g.constant_value(v) && !param_added[v]) {
          param_added[v] = true;
          model.params.push_back({g.value(v).name, *g.constant_value(v)});
        }
      }
      node["args"].push_back(value_ref(g, plan, out));
      model.graph["nodes"].push_back(node);
      if (added) kernels.push_back(std::move(k));
    }
  }
  for (ValueId v : g.outputs())  // an output that is a constant reads its param
    if (g.constant_value(v) && !param_added[v]) {
      param_added[v] = true;
      model.params.push_back({g.value(v).name, *g.constant_value(v)});
    }
  std::vector<std::optional<LoweredFunc>> lowered(kernels.size());
  try {
    ops::parallel_for_each(kernels.size(), [&](size_t i) {
      lowered[i] = lower(ops::schedule_group(kernels[i], target), kernels[i].args(), "fused_" + std::to_string(i), target);
    });
    std::vector<BuildInput> inputs;
    for (auto& f : lowered) inputs.emplace_back(*f);
    model.module = create_backend(target)->build(inputs);
  } catch (const UserError& e) {
    user_error("compiling the graph: ", e.what());
  }
  model.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return model;
}

void export_model(const CompiledModel& model, const std::string& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) user_error("cannot create the module folder '", folder, "': ", error.message());
  model.module.export_library(folder + "/kernels.so");
  write_file_atomically(folder + "/graph.json", model.graph.dump(1) + "\n");
  save_tensors(folder + "/params.bin", model.params);
}

}  // namespace tessel
