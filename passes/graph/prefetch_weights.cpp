// Graph pass "prefetch_weights": after "fuse" (and "fuse_blocks"), gives the weights of each
// group to an earlier group, whose kernel prefetches them into the outer caches while it computes
// (FusedGroup::prefetched, Stage::prefetch_whole).
//
// Why: in a model, each layer's weights come from the L3 or memory (the other layers pushed them
// out), and a layer that uses each weight for few operations (a classifier at batch 1: two flops
// per 4-byte weight) runs at the speed they come, while the layers before it run at the FMA peak
// with the memory bus idle. MobileNet-V2's 5 MB classifier takes about twice as long with its
// weights in memory as with them in the L3. Fetched during the layer before (into L2, from where
// the L2's evictions keep them in the L3), they are close when the layer starts.
//
// A group's weights are its largest constant, when it has `min_bytes` or more; its carrier is the
// nearest earlier group (at most `window` groups back) whose anchor does at least
// `carrier_flops_per_byte` flops per byte it then reads from memory: its own weights, those it
// already carries and these. A carrier's flops are the time to hide its fetches behind, and each
// weight it carries takes from that time, so the budget counts them all. Switched off by name
// (--passes -prefetch_weights).
//
// Only for CPU targets with `min_vector_registers` or more (32: AVX-512). Under the AVX2 ceiling
// the carriers are pixel-tiled 1x1 kernels; with the prefetches in them they first spilled
// (LLVM stopped unswitching their last tile's row guards, now partition_loops' job), and since
// that fix the pass measured no gain there (docs/graph.md, "Prefetching a later layer's weights").
#include <algorithm>

#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

// 2 x (elements) x (reduction extent) summed over the reductions of the anchor's own expression
// (a Winograd convolution's transforms and batched products included); 0 without an anchor.
double anchor_flops(const Graph& g, const FusedGroup& group) {
  if (group.anchor < 0) return 0;
  const Node& node = g.node(group.anchor);
  std::vector<TensorType> inputs;
  for (ValueId v : node.inputs) inputs.push_back(g.value(v).type);
  double flops = 0;
  for (const Tensor& t : topological_order(op_expression(node.op, inputs, node.attrs).outputs)) {
    if (!t->is_reduction()) continue;
    double points = 2;
    for (int64_t extent : t.shape()) points *= static_cast<double>(extent);
    for (const IterVar& r : t->reduce_axis) {
      const int64_t* extent = as_const_int(r->dom.extent);
      points *= extent ? static_cast<double>(*extent) : 1.0;
    }
    flops += points;
  }
  return flops;
}

// The group's weights: its largest constant (not the bias beside them); -1 if it has none.
ValueId largest_constant(const Graph& g, const FusedGroup& group) {
  ValueId largest = -1;
  for (ValueId v : group.inputs)
    if (g.constant_value(v) && (largest < 0 || g.value(v).type.numel() > g.value(largest).type.numel())) largest = v;
  return largest;
}

// The bytes of a group's weights (largest_constant's value); 0 for none.
int64_t constant_bytes(const Graph& g, ValueId weights) {
  return weights < 0 ? 0 : g.constant_value(weights)->nbytes();
}

struct Thresholds {
  int64_t min_bytes;
  double carrier_flops_per_byte;
  int window;
  int min_vector_registers;
};

class PrefetchWeights : public GraphPass {
 public:
  explicit PrefetchWeights(Thresholds t) : t_(t) {}

  std::string run(OptimizedGraph& opt) const override {
    if (!opt.groups) return "no fused groups (the fuse pass did not run)";
    if (!opt.target.is_cpu()) return "nothing prefetched: not a CPU target";
    if (opt.target.cpu().vector_registers < t_.min_vector_registers)
      return "nothing prefetched: the target has " + std::to_string(opt.target.cpu().vector_registers) +
             " vector registers, fewer than min_vector_registers=" + std::to_string(t_.min_vector_registers);
    std::vector<FusedGroup>& groups = *opt.groups;
    std::vector<double> flops;
    for (const FusedGroup& group : groups) flops.push_back(anchor_flops(opt.graph, group));
    // Each group's weights, and what its kernel reads from memory: its own weights, then those it carries.
    std::vector<ValueId> weights;
    std::vector<int64_t> streamed;
    for (const FusedGroup& group : groups) {
      weights.push_back(largest_constant(opt.graph, group));
      streamed.push_back(constant_bytes(opt.graph, weights.back()));
    }
    int moved = 0;
    int64_t moved_bytes = 0;
    for (size_t i = 0; i < groups.size(); ++i) {
      int64_t bytes = constant_bytes(opt.graph, weights[i]);
      if (bytes < t_.min_bytes) continue;
      for (size_t back = 1; back <= static_cast<size_t>(t_.window) && back <= i; ++back) {
        size_t carrier = i - back;
        if (flops[carrier] < t_.carrier_flops_per_byte * static_cast<double>(streamed[carrier] + bytes)) continue;
        groups[carrier].prefetched.push_back(weights[i]);
        streamed[carrier] += bytes;
        ++moved;
        moved_bytes += bytes;
        break;
      }
    }
    return "the weights of " + std::to_string(moved) + " groups (" + std::to_string(moved_bytes) +
           " bytes) prefetched by earlier groups";
  }

 private:
  Thresholds t_;
};

const std::vector<ParamSpec> kParams = {
    {"min_bytes", ParamType::Int, 128 << 10, "prefetch a group's weights when they are at least this many bytes",
     Allowed::at_least(1)},
    {"carrier_flops_per_byte", ParamType::Float, 6.0,
     "a carrier does at least this many flops per byte it reads from memory: its own weights and all it prefetches",
     Allowed::at_least(0)},
    {"window", ParamType::Int, 8, "how many groups back the carrier may be", Allowed::at_least(1)},
    {"min_vector_registers", ParamType::Int, 32,
     "only for targets with at least this many vector registers (the carriers' kernels need the headroom)",
     Allowed::at_least(0)}};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, prefetch_weights,
                       "each group's weights prefetched into L2 by the kernel of an earlier group that has the flops to "
                       "hide the fetch",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<PrefetchWeights>(
                             Thresholds{p.get_int("min_bytes"), p.get_float("carrier_flops_per_byte"),
                                        static_cast<int>(p.get_int("window")),
                                        static_cast<int>(p.get_int("min_vector_registers"))});
                       });

}  // namespace tessel::graph
