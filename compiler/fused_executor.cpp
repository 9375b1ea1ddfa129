// Fused, memory-planned execution of an optimized graph (compiler/fused_executor.h).
#include "compiler/fused_executor.h"

#include <chrono>
#include <cstring>
#include <unordered_map>

#include "ops/graph/fused_kernel.h"
#include "ops/graph/parallel_build.h"
#include "passes/lower/lower.h"
#include "support/error.h"
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

}  // namespace

FusedExecutor::FusedExecutor(const graph::OptimizedGraph& opt, const Target& target)
    : graph_(opt.graph), plan_(memory_plan_of(opt)) {
  auto start = std::chrono::steady_clock::now();
  std::vector<ops::GroupKernel> kernels;
  std::vector<size_t> kernel_of_step;
  std::unordered_map<std::string, size_t> by_key;
  for (const FusedGroup& group : fused_groups(opt)) {
    for (ValueId out : group.outputs) {
      ops::GroupKernel k = ops::group_kernel(graph_, group.nodes, out);
      auto [it, added] = by_key.emplace(k.key, kernels.size());
      Step step{nullptr, k.inputs};
      step.args.push_back(out);
      steps_.push_back(step);
      kernel_of_step.push_back(it->second);
      if (!added) continue;
      KernelInfo info{"fused_" + std::to_string(kernels.size()), {}, ""};
      for (graph::NodeId n : group.nodes) info.ops.push_back(graph_.node(n).op);
      info.schedule = "default (" + (k.anchor.defined() ? k.anchor->tag : k.output->tag) + ")";
      infos_.push_back(info);
      kernels.push_back(std::move(k));
    }
  }
  functions_.resize(kernels.size());
  try {
    ops::parallel_for_each(kernels.size(), [&](size_t i) {
      LoweredFunc f = lower(ops::schedule_group(kernels[i]), kernels[i].args(), infos_[i].name, target);
      functions_[i] = create_backend(target)->compile(f);
    });
  } catch (const UserError& e) {
    user_error("compiling the graph: ", e.what());
  }
  for (size_t s = 0; s < steps_.size(); ++s) steps_[s].kernel = functions_[kernel_of_step[s]].get();
  for (int64_t bytes : plan_.storage_bytes) storage_.push_back(NDArray::empty({bytes}, ElementType::of<uint8_t>()));
  compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

FusedExecutor::~FusedExecutor() = default;

void* FusedExecutor::address(ValueId v) {
  if (const NDArray* c = graph_.constant_value(v)) return const_cast<void*>(c->data());
  auto given = inputs_.find(v);
  if (given != inputs_.end()) return given->second.data();
  return storage_.at(plan_.storage_of.at(v)).data();
}

std::vector<NDArray> FusedExecutor::run(const std::map<std::string, NDArray>& inputs) {
  for (const auto& [name, array] : inputs) {
    std::optional<ValueId> v = graph_.find_value(name);
    if (!v || std::find(graph_.inputs().begin(), graph_.inputs().end(), *v) == graph_.inputs().end()) {
      std::vector<std::string> names;
      for (ValueId in : graph_.inputs()) names.push_back(graph_.value(in).name);
      user_error("the graph has no input named '", name, "'; its inputs are ", join_list(names));
    }
  }
  inputs_.clear();
  for (ValueId v : graph_.inputs()) {
    const graph::Value& value = graph_.value(v);
    auto it = inputs.find(value.name);
    if (it == inputs.end())
      user_error("no array was given for the graph input '", value.name, "' (", value.type.str(), ")");
    it->second.check_matches(value.type.shape, value.type.dtype, "graph input '" + value.name + "'");
    inputs_[v] = it->second;
  }
  std::vector<void*> args;
  for (const Step& step : steps_) {
    args.clear();
    for (ValueId v : step.args) args.push_back(address(v));
    step.kernel->call(args.data());
  }
  std::vector<NDArray> out;
  for (ValueId v : graph_.outputs()) {
    const graph::TensorType& t = graph_.value(v).type;
    NDArray result = NDArray::empty(t.shape, t.dtype);
    std::memcpy(result.data(), address(v), result.nbytes());
    out.push_back(result);
  }
  inputs_.clear();  // do not keep the caller's arrays alive
  return out;
}

}  // namespace tessel
