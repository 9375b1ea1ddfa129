// Fused group kernels: expression and schedule (ops/graph/fused_kernel.h).
#include "ops/graph/fused_kernel.h"

#include <algorithm>
#include <unordered_map>

#include "ir/graph/op.h"
#include "ops/graph/fold_addend.h"
#include "ops/block_schedule.h"
#include "ops/op_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

using graph::Node;
using graph::NodeId;
using graph::ValueId;

std::vector<Tensor> GroupKernel::args() const {
  std::vector<Tensor> out = placeholders;
  out.insert(out.end(), prefetch_placeholders.begin(), prefetch_placeholders.end());
  out.push_back(output);
  return out;
}

namespace {

// How many times each value is read in the group: by its nodes, as its output, as a tile stage.
std::unordered_map<ValueId, int> group_reads(const graph::Graph& g, const std::vector<NodeId>& nodes, ValueId output,
                                             const std::vector<ValueId>& tile_values) {
  std::unordered_map<ValueId, int> reads{{output, 1}};
  for (NodeId n : nodes)
    for (ValueId v : g.node(n).inputs) ++reads[v];
  for (ValueId v : tile_values) ++reads[v];
  return reads;
}

// `added` with a sum it alone reads folded in (ops/graph/fold_addend.h): the sum of a convolution
// or dense layer of the group, read nowhere else, plus its bias, becomes one sum starting at the
// bias. Returns the tensor the node's output becomes; the anchor follows its sum.
Tensor fold_bias(const Tensor& added, const std::vector<ValueId>& inputs,
                 const std::unordered_map<ValueId, Tensor>& sums, const std::unordered_map<ValueId, int>& reads,
                 Tensor& anchor) {
  for (ValueId v : inputs) {
    auto sum = sums.find(v);
    if (sum == sums.end() || reads.at(v) != 1) continue;
    Tensor folded = fold_addend_into_sum(added, sum->second);
    if (!folded.defined()) continue;
    if (anchor.same_as(sum->second)) anchor = folded;
    return folded;
  }
  return added;
}

}  // namespace

GroupKernel group_kernel(const graph::Graph& g, const std::vector<NodeId>& nodes, ValueId output,
                         const std::vector<ValueId>& tile_values) {
  GroupKernel k;
  k.output_value = output;
  std::unordered_map<ValueId, Tensor> tensor_of;
  std::unordered_map<ValueId, Tensor> sums;      // the outputs of the group's convolutions and dense layers
  std::unordered_map<ValueId, std::string> ref;  // how the key names a value
  std::unordered_map<ValueId, int> reads = group_reads(g, nodes, output, tile_values);
  for (size_t index = 0; index < nodes.size(); ++index) {
    const Node& node = g.node(nodes[index]);
    std::vector<Tensor> in;
    k.key += node.op + node.attrs.str() + "(";
    for (ValueId v : node.inputs) {
      if (!tensor_of.count(v)) {
        const graph::TensorType& t = g.value(v).type;
        ref[v] = "in" + std::to_string(k.inputs.size()) + ":" + t.str();
        tensor_of[v] = placeholder(t.shape, t.dtype, "x" + std::to_string(k.inputs.size()));
        k.inputs.push_back(v);
        k.placeholders.push_back(tensor_of[v]);
      }
      in.push_back(tensor_of[v]);
      k.key += ref[v] + ",";
    }
    k.key += ");";
    std::vector<Tensor> out;
    try {
      out = graph::graph_op(node.op).compute(in, node.attrs);
    } catch (const UserError& e) {
      user_error("node '", node.name, "': ", e.what());
    }
    graph::OpPattern pattern = graph::graph_op(node.op).pattern();
    bool anchors = pattern == graph::OpPattern::ComplexOutFusable || pattern == graph::OpPattern::Opaque;
    if (!anchors && out.size() == 1) out[0] = fold_bias(out[0], node.inputs, sums, reads, k.anchor);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      tensor_of[node.outputs[i]] = out.at(i);
      ref[node.outputs[i]] = "n" + std::to_string(index) + "." + std::to_string(i);
      k.node_outputs.push_back(out[i]);
      if (anchors) k.anchor = out[i];
      if (pattern == graph::OpPattern::ComplexOutFusable) sums[node.outputs[i]] = out[i];
    }
  }
  k.output = tensor_of.at(output);
  for (ValueId v : tile_values) {
    k.tile_stages.push_back(tensor_of.at(v));
    k.key += ";tile:" + ref.at(v);
  }
  k.key += "->" + ref.at(output);
  TESSEL_CHECK(!k.output->is_placeholder(), "a fused group's output '", g.value(output).name, "' is one of its inputs");
  // Lowering takes exactly the tensors read: drop inputs the output does not depend on.
  std::vector<Tensor> read = topological_order({k.output});
  for (size_t i = k.inputs.size(); i-- > 0;) {
    bool used = std::any_of(read.begin(), read.end(), [&](const Tensor& t) { return t.same_as(k.placeholders[i]); });
    if (used) continue;
    k.inputs.erase(k.inputs.begin() + i);
    k.placeholders.erase(k.placeholders.begin() + i);
  }
  return k;
}

namespace {

// The default schedule registered for `tag`, applied to `output` (the one place a fused group
// meets the operator schedules of ops/).
Schedule default_schedule_for(const std::string& tag, const Tensor& output, const Target& target) {
  return Registry<OpSchedule>::instance().create(op_schedule_name(tag, target.device()))->apply(output, target);
}

// Most lines each step of a whole prefetch fetches: short bursts, so that a core's prefetches do
// not outnumber the misses it can have in flight (docs/graph.md, "Prefetching a later layer's
// weights").
constexpr int64_t kPrefetchLinesPerStep = 16;

}  // namespace

Schedule schedule_group(const GroupKernel& k, const Target& target) {
  if (!k.tile_stages.empty()) {
    Schedule s = schedule_fused_block(k.output, k.tile_stages, target);
    inline_group_stages(k, s);
    return s;
  }
  bool anchored = k.anchor.defined() && !k.anchor.same_as(k.output);
  Schedule s = default_schedule_for(anchored ? k.anchor->tag : k.output->tag, k.output, target);
  inline_group_stages(k, s);
  return s;
}

void add_prefetched(GroupKernel& k, const graph::Graph& g, const std::vector<ValueId>& values) {
  for (ValueId v : values) {
    const graph::TensorType& t = g.value(v).type;
    k.prefetched.push_back(v);
    k.prefetch_placeholders.push_back(placeholder(t.shape, t.dtype, "prefetched" + std::to_string(k.prefetched.size())));
    k.key += ";prefetch:" + t.str();
  }
}

void schedule_prefetched(const GroupKernel& k, Schedule& s) {
  if (k.prefetched.empty()) return;
  // The last reduction computed (the anchor's accumulator) runs the kernel's FMAs, between which
  // the prefetches hide; the output's stage when there is none.
  Stage at = s[k.output];
  for (const Stage& stage : s.stages())
    if (stage->op->is_reduction() && stage->attach != AttachKind::Inline) at = stage;
  for (const Tensor& t : k.prefetch_placeholders) at.prefetch_whole(t, kPrefetchLinesPerStep);
}

void inline_group_stages(const GroupKernel& k, Schedule& s) {
  std::vector<Tensor> kept = k.tile_stages;
  if (k.anchor.defined()) kept.push_back(k.anchor);
  inline_root_stages(s, k.output, k.node_outputs, kept);
}

}  // namespace tessel::ops
