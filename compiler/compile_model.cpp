// Whole-model compilation and export (compiler/compile_model.h).
#include "compiler/compile_model.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "backends/backend.h"
#include "backends/build_input.h"
#include "compiler/group_schedule.h"
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

// --require-tuned's error for a group whose anchor has a workload and no record applied.
[[noreturn]] void require_tuned_error(const nlohmann::json& node, const GroupSchedule& choice) {
  std::string ops;
  for (const auto& op : node["ops"]) ops += (ops.empty() ? "" : "+") + op.get<std::string>();
  user_error("required tuned schedules: group ", node["kernel"].get<std::string>(), " (", ops, ") of workload ",
             choice.workload, " has none (", choice.reason, "); tune it with `tessel tune-model MODEL --db DB` or ",
             "`tessel tune --workload ", choice.workload, " --db DB`");
}

int64_t constant_bytes(const graph::Graph& g, const std::vector<ValueId>& values) {
  int64_t bytes = 0;
  for (ValueId v : values)
    if (const NDArray* c = g.constant_value(v)) bytes += int64_t(c->nbytes());
  return bytes;
}

// The group's schedule from the records, unless its workload is among those set aside.
GroupSchedule schedule_of(const graph::Graph& g, const FusedGroup& group, ValueId out, const ops::GroupKernel& k,
                          const Target& target, const CompileOptions& options) {
  GroupSchedule choice = choose_group_schedule(g, group, out, k, target, options.records);
  const auto& aside = options.default_workloads;
  if (choice.tunable() && std::find(aside.begin(), aside.end(), choice.workload) != aside.end())
    return set_aside(choice, "its record set aside for the check in the model");
  return choice;
}

}  // namespace

CompiledModel compile_model(const graph::OptimizedGraph& opt, const Target& target, const CompileOptions& options) {
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
  std::vector<GroupSchedule> choices;  // one per kernel
  std::unordered_map<std::string, size_t> by_key;
  std::unordered_map<ValueId, bool> param_added;
  for (const FusedGroup& group : fused_groups(opt)) {
    for (ValueId out : group.outputs) {
      ops::GroupKernel k = ops::group_kernel(g, group.nodes, out, group.tile_values);
      ops::add_prefetched(k, g, group.prefetched);
      auto [it, added] = by_key.emplace(k.key, kernels.size());
      if (added) choices.push_back(schedule_of(g, group, out, k, target, options));
      if (added && choices.back().kernel) k = *choices.back().kernel;  // rebuilt for its configuration
      const GroupSchedule& choice = choices[it->second];
      nlohmann::json node = {{"kernel", "fused_" + std::to_string(it->second)}, {"ops", nlohmann::json::array()}};
      for (graph::NodeId n : group.nodes) node["ops"].push_back(g.node(n).op);
      if (options.require_tuned && choice.tunable() && choice.status == "default") require_tuned_error(node, choice);
      node["schedule"] = choice.label();
      node["tuning"] = choice.to_json();
      // The anchor's nominal operations (a Winograd convolution counts the direct one's), so a
      // profile can print each kernel's rate against the machine's peak (tessel bench peak).
      if (choice.flops > 0) node["flops"] = choice.flops;
      // Its weights (not those a carrier prefetches for a later call), so that a profile can say
      // what reading them from memory takes (tessel bench bandwidth).
      if (int64_t bytes = constant_bytes(g, k.inputs)) node["param_bytes"] = bytes;
      // And those it prefetches for a later call: a carrier reads them from memory too.
      for (ValueId v : k.prefetched) node["prefetches"].push_back(g.value(v).name);
      if (int64_t bytes = constant_bytes(g, k.prefetched)) node["prefetch_bytes"] = bytes;
      std::vector<ValueId> args = k.inputs;
      args.insert(args.end(), k.prefetched.begin(), k.prefetched.end());
      for (ValueId v : args) {
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
      Schedule s = choices[i].schedule ? *choices[i].schedule : ops::schedule_group(kernels[i], target);
      ops::schedule_prefetched(kernels[i], s);
      lowered[i] = lower(s, kernels[i].args(), "fused_" + std::to_string(i), target);
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
