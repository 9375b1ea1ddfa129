// Graph pass "fuse": operator fusion by the TVM paper's op patterns (section 3) over the
// post-dominator tree, as TVM's FuseOps does it, in two phases:
//   0. an anchor (complex-out-fusable: conv2d, dense, pooling) takes the nodes up to its
//      immediate post-dominator when that node and every node on the way are injective with the
//      anchor's output shape (element-wise: the bias, the activation, the residual add, the clip of
//      a convolution; not a reshape), so they can run in the anchor's output loop;
//   1. an injective node joins its immediate post-dominator when every node on the way is
//      injective and that node is injective or a reduction: element-wise chains become one
//      kernel, and a reduction reads its element-wise producers directly.
//   2. (layout_into_conv) a layout transform read only by a blocked convolution (conv2d_nchwc) joins
//      its group: the convolution's pad copy (or, without padding, its broadcast loads) reads the
//      producer's layout directly, and the transform's pass over memory and its buffer disappear.
//      Not a depthwise convolution's: it reads each input vector nine times, and from another
//      block size half a cache line each time (MobileNet-V2 with `layout{depthwise_block=operator}`
//      on AVX2, 1 thread: 11.1 ms with those transforms as kernels of their own, 13.9 ms inlined).
// Opaque operators (softmax) fuse with nothing, and a group holds at most one anchor. Unlike TVM,
// other injective producers do not join an anchor's group (they would be recomputed inside its
// reduction loop); the pad a convolution needs is part of its own expression already.
//
// The result is the groups (OptimizedGraph::groups); the graph is not changed.
#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "passes/graph/graph_pass.h"
#include "passes/graph/post_dominators.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

class Fusion {
 public:
  Fusion(const Graph& g, bool layout_into_conv) : g_(g), post_(g), layout_into_conv_(layout_into_conv) {
    for (NodeId n : g.topological_order()) {
      if (!g.node(n).is_operator()) continue;
      order_.push_back(n);
      parent_[n] = n;
      pattern_[n] = graph_op(g.node(n).op).pattern();
    }
  }

  std::vector<FusedGroup> run() {
    for (int phase = 0; phase < 2; ++phase)
      for (NodeId n : order_) try_fuse(n, phase);
    if (layout_into_conv_)
      for (NodeId n : order_) try_fuse_into_conv(n);
    return groups();
  }

 private:
  NodeId root(NodeId n) {
    while (parent_[n] != n) n = parent_[n] = parent_[parent_[n]];
    return n;
  }
  OpPattern group_pattern(NodeId n) { return pattern_[root(n)]; }

  void try_fuse(NodeId n, int phase) {
    NodeId sink = post_.immediate(n);
    if (sink == PostDominators::kExit || root(n) == root(sink)) return;
    OpPattern p = group_pattern(n), sp = group_pattern(sink);
    auto injective = [&](NodeId m) { return group_pattern(m) == OpPattern::Injective; };
    if (phase == 0 && p == OpPattern::ComplexOutFusable && sp == OpPattern::Injective) {
      // element-wise consumers only (TVM's "broadcast" bound): the anchor's output loop computes them
      const std::vector<int64_t>& shape = g_.value(g_.node(n).outputs[0]).type.shape;
      auto elementwise = [&](NodeId m) { return injective(m) && same_shape(m, shape); };
      if (elementwise(sink) && all_paths(n, sink, elementwise)) merge_paths(n, sink, root(n));
    } else if (phase == 1 && p == OpPattern::Injective && (sp == OpPattern::Injective || sp == OpPattern::Reduction)) {
      if (all_paths(n, sink, injective)) merge_paths(n, sink, root(sink));
    }
  }

  // Phase 2: a lone layout transform whose one reader is a blocked convolution. Pure data movement
  // read through an index map, which the convolution's pad copy or broadcasts read once per use.
  void try_fuse_into_conv(NodeId n) {
    if (g_.node(n).op != "layout_transform" || !alone(n)) return;
    std::vector<NodeId> r = readers(n);
    if (r.size() == 1 && g_.node(r[0]).op == "conv2d_nchwc") merge(n, r[0]);
  }

  bool alone(NodeId n) {
    return std::none_of(order_.begin(), order_.end(), [&](NodeId m) { return m != n && root(m) == root(n); });
  }

  bool same_shape(NodeId m, const std::vector<int64_t>& shape) const {
    const Node& node = g_.node(m);
    return node.outputs.size() == 1 && g_.value(node.outputs[0]).type.shape == shape;
  }

  // The readers of n's outputs.
  std::vector<NodeId> readers(NodeId n) const {
    std::vector<NodeId> out;
    for (ValueId v : g_.node(n).outputs)
      for (const Use& u : g_.users(v)) out.push_back(u.node);
    return out;
  }

  // Whether every node strictly between n and sink, on every path, is `ok`.
  bool all_paths(NodeId n, NodeId sink, const std::function<bool(NodeId)>& ok) {
    std::unordered_set<NodeId> seen;
    std::function<bool(NodeId)> visit = [&](NodeId m) {
      if (m == sink || !seen.insert(m).second) return true;
      if (!ok(m)) return false;
      for (NodeId r : readers(m))
        if (!visit(r)) return false;
      return true;
    };
    for (NodeId r : readers(n))
      if (!visit(r)) return false;
    return true;
  }

  // Puts n, sink and every node between them into the group of `target`.
  void merge_paths(NodeId n, NodeId sink, NodeId target) {
    std::unordered_set<NodeId> seen;
    std::function<void(NodeId)> visit = [&](NodeId m) {
      if (!seen.insert(m).second) return;
      merge(m, target);
      if (m == sink) return;
      for (NodeId r : readers(m)) visit(r);
    };
    visit(n);
  }

  void merge(NodeId m, NodeId target) {
    NodeId a = root(m), b = root(target);
    if (a == b) return;
    parent_[a] = b;
    pattern_[b] = std::max(pattern_[a], pattern_[b]);
  }

  // The groups, each in topological order, ordered by their last node (a group's inputs are
  // computed by groups before it: every node between two members is a member).
  std::vector<FusedGroup> groups() {
    std::unordered_map<NodeId, std::vector<NodeId>> members;
    std::vector<NodeId> roots;
    for (NodeId n : order_) {
      auto& m = members[root(n)];
      if (m.empty()) roots.push_back(root(n));
      m.push_back(n);
    }
    std::unordered_map<NodeId, size_t> position;
    for (size_t i = 0; i < order_.size(); ++i) position[order_[i]] = i;
    std::sort(roots.begin(), roots.end(),
              [&](NodeId a, NodeId b) { return position[members[a].back()] < position[members[b].back()]; });
    std::vector<FusedGroup> out;
    std::unordered_set<ValueId> ready;
    for (ValueId v : all_source_values()) ready.insert(v);
    for (NodeId r : roots) {
      out.push_back(make_group(g_, members[r]));
      for (ValueId v : out.back().inputs)
        TESSEL_CHECK(ready.count(v), "fusion ordered a group before the producer of '", g_.value(v).name, "'");
      for (NodeId n : out.back().nodes)
        for (ValueId v : g_.node(n).outputs) ready.insert(v);
    }
    return out;
  }

  // The values of graph inputs and constants.
  std::vector<ValueId> all_source_values() const {
    std::vector<ValueId> out;
    for (NodeId n : g_.nodes())
      if (!g_.node(n).is_operator()) out.push_back(g_.node(n).outputs[0]);
    return out;
  }

  const Graph& g_;
  PostDominators post_;
  bool layout_into_conv_;
  std::vector<NodeId> order_;
  std::unordered_map<NodeId, NodeId> parent_;  // union-find over nodes; a root stands for its group
  std::unordered_map<NodeId, OpPattern> pattern_;
};

class FuseOps : public GraphPass {
 public:
  explicit FuseOps(bool layout_into_conv) : layout_into_conv_(layout_into_conv) {}

  std::string run(OptimizedGraph& opt) const override {
    opt.groups = Fusion(opt.graph, layout_into_conv_).run();
    opt.memory.reset();
    size_t ops = 0, fused = 0;
    for (const FusedGroup& group : *opt.groups) {
      ops += group.nodes.size();
      if (group.nodes.size() > 1) ++fused;
    }
    return std::to_string(ops) + " operators in " + std::to_string(opt.groups->size()) + " kernels (" +
           std::to_string(fused) + " fused groups)";
  }

 private:
  bool layout_into_conv_;
};

const std::vector<ParamSpec> kParams = {
    {"layout_into_conv", ParamType::Bool, true,
     "a layout transform read only by a blocked convolution runs inside the convolution's kernel"}};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, fuse, "operator fusion by op pattern over the post-dominator tree", kParams,
                       [](const PluginParams& p) { return std::make_unique<FuseOps>(p.get_bool("layout_into_conv")); });

}  // namespace tessel::graph
