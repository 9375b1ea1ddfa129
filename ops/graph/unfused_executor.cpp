// Node-by-node compilation and execution of a graph (ops/graph/unfused_executor.h).
#include "ops/graph/unfused_executor.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "ir/graph/op.h"
#include "ir/graph/verifier.h"
#include "ir/te_interpreter.h"
#include "ops/graph/parallel_build.h"
#include "ops/op_schedule.h"
#include "passes/lower/lower.h"
#include "support/error.h"

namespace tessel::ops {

using graph::Graph;
using graph::Node;
using graph::NodeId;
using graph::ValueId;

namespace {

// What one kernel computes: output `output` of a node with these operator, attributes and input
// types. Nodes with equal keys share the kernel.
struct KernelRequest {
  std::string key;
  std::string name;  // of the compiled function
  std::string op;
  graph::Attributes attrs;
  std::vector<graph::TensorType> input_types;
  int output = 0;
};

// The kernel of a request and the input slots it reads (an output of a multi-output operator may
// read only some inputs, and lowering takes exactly the tensors read).
struct BuiltKernel {
  std::unique_ptr<CompiledFunction> function;
  std::vector<int> slots;
};

BuiltKernel build_kernel(const KernelRequest& r, const Target& target) {
  graph::OpExpression e = graph::op_expression(r.op, r.input_types, r.attrs);
  const Tensor& out = e.outputs.at(r.output);
  TESSEL_CHECK(!out->is_placeholder(), "operator '", r.op, "' returned an input as its output");
  std::vector<Tensor> read = topological_order({out});
  BuiltKernel built;
  std::vector<Tensor> args;
  for (size_t slot = 0; slot < e.inputs.size(); ++slot) {
    bool used = std::any_of(read.begin(), read.end(), [&](const Tensor& t) { return t.same_as(e.inputs[slot]); });
    if (!used) continue;
    built.slots.push_back(static_cast<int>(slot));
    args.push_back(e.inputs[slot]);
  }
  args.push_back(out);
  LoweredFunc func = lower(default_schedule(out, target), args, r.name);
  built.function = create_backend(target)->compile(func);
  return built;
}

// Builds every request, on as many threads as the machine has.
std::vector<BuiltKernel> build_all(const std::vector<KernelRequest>& requests, const Target& target) {
  std::vector<BuiltKernel> built(requests.size());
  parallel_for_each(requests.size(), [&](size_t i) { built[i] = build_kernel(requests[i], target); });
  return built;
}

std::string kernel_name(const std::string& op, size_t index) { return "graph_" + op + "_" + std::to_string(index); }

}  // namespace

UnfusedExecutor::UnfusedExecutor(const Graph& graph, const Target& target) : graph_(graph) {
  graph::verify(graph_);
  auto start = std::chrono::steady_clock::now();
  plan(target);
  compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

UnfusedExecutor::~UnfusedExecutor() = default;

void UnfusedExecutor::plan(const Target& target) {
  storage_.resize(graph_.num_values());
  std::vector<KernelRequest> requests;
  std::unordered_map<std::string, size_t> request_of;
  struct Pending {
    size_t request;
    NodeId node;
    ValueId output;
  };
  std::vector<Pending> pending;
  for (NodeId n : graph_.topological_order()) {
    const Node& node = graph_.node(n);
    if (node.is_constant()) storage_[node.outputs[0]] = node.constant;
    if (!node.is_operator()) continue;
    KernelRequest r{"", "", node.op, node.attrs, {}, 0};
    for (ValueId v : node.inputs) r.input_types.push_back(graph_.value(v).type);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const graph::TensorType& type = graph_.value(node.outputs[i]).type;
      storage_[node.outputs[i]] = NDArray::empty(type.shape, type.dtype);
      if (type.numel() == 0) continue;  // nothing to compute
      r.output = static_cast<int>(i);
      r.key = node.op + node.attrs.str() + "#" + std::to_string(i);
      for (const auto& t : r.input_types) r.key += ";" + t.str();
      auto [it, added] = request_of.emplace(r.key, requests.size());
      if (added) {
        r.name = kernel_name(node.op, requests.size());
        requests.push_back(r);
      }
      pending.push_back({it->second, n, node.outputs[i]});
    }
  }
  std::vector<BuiltKernel> built;
  try {
    built = build_all(requests, target);
  } catch (const UserError& e) {
    user_error("compiling the graph: ", e.what());
  }
  for (const Pending& p : pending) {
    Step step{built[p.request].function.get(), {}};
    for (int slot : built[p.request].slots) step.args.push_back(graph_.node(p.node).inputs[slot]);
    step.args.push_back(p.output);
    steps_.push_back(std::move(step));
  }
  for (BuiltKernel& b : built) kernels_.push_back(std::move(b.function));
}

std::vector<NDArray> UnfusedExecutor::run(const std::map<std::string, NDArray>& inputs) {
  for (const auto& [name, array] : inputs) {
    std::optional<ValueId> v = graph_.find_value(name);
    if (!v || std::find(graph_.inputs().begin(), graph_.inputs().end(), *v) == graph_.inputs().end()) {
      std::vector<std::string> names;
      for (ValueId in : graph_.inputs()) names.push_back(graph_.value(in).name);
      user_error("the graph has no input named '", name, "'; its inputs are ", join_list(names));
    }
  }
  for (ValueId v : graph_.inputs()) {
    const graph::Value& value = graph_.value(v);
    auto it = inputs.find(value.name);
    if (it == inputs.end())
      user_error("no array was given for the graph input '", value.name, "' (", value.type.str(), ")");
    it->second.check_matches(value.type.shape, value.type.dtype, "graph input '" + value.name + "'");
    storage_[v] = it->second;
  }
  std::vector<void*> args;
  for (const Step& step : steps_) {
    args.clear();
    for (ValueId v : step.args) args.push_back(storage_[v].data());
    step.kernel->call(args.data());
  }
  std::vector<NDArray> out;
  for (ValueId v : graph_.outputs()) out.push_back(storage_[v].copy());
  for (ValueId v : graph_.inputs()) storage_[v] = NDArray();  // do not keep the caller's arrays alive
  return out;
}

}  // namespace tessel::ops
