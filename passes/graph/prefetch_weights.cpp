// Graph pass "prefetch_weights": after "fuse" (and "fuse_blocks"), gives the weights of each
// memory-bound group to an earlier compute-bound group, whose kernel prefetches them into the outer
// caches while it computes (FusedGroup::prefetched, Stage::prefetch_whole).
//
// Why: a layer that uses each weight for few operations (a classifier at batch 1: two flops per
// 4-byte weight) runs at the speed its weights come from memory, while the convolutions before it
// run at the FMA peak with the memory bus idle. MobileNet-V2's 5 MB classifier takes about twice
// as long with its weights in memory as with them in the L3. Fetched during the last convolutions
// (into L2, from where the L2's evictions keep them in the L3), the classifier finds them close.
//
// A group streams when its constants add up to at least `min_bytes` and its anchor does fewer
// than `max_intensity` flops per byte of them; its carrier is the nearest earlier group (at most
// `window` groups back) that does at least `carrier_flops_per_byte` flops per byte prefetched and
// itself does not stream. Switched off by name (--passes -prefetch_weights).
//
// Only for CPU targets with `min_vector_registers` or more (32: AVX-512). Under the AVX2 ceiling
// the carriers' 1x1 kernels hold every register in their inner loop already, and the prefetches
// (a base pointer and an index live across it) made LLVM spill there: MobileNet-V2's last 1x1
// layer 205 -> 455-500 us, for 30-84 us the classifier gained.
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

int64_t constant_bytes(const Graph& g, const FusedGroup& group) {
  int64_t bytes = 0;
  for (ValueId v : group.inputs)
    if (g.constant_value(v)) bytes += g.value(v).type.numel() * g.value(v).type.dtype.bytes();
  return bytes;
}

// The group's weights: its largest constant (not the bias beside them).
ValueId largest_constant(const Graph& g, const FusedGroup& group) {
  ValueId largest = -1;
  for (ValueId v : group.inputs)
    if (g.constant_value(v) && (largest < 0 || g.value(v).type.numel() > g.value(largest).type.numel())) largest = v;
  return largest;
}

struct Thresholds {
  int64_t min_bytes;
  double max_intensity;
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
    std::vector<int64_t> bytes;
    for (const FusedGroup& group : groups) {
      flops.push_back(anchor_flops(opt.graph, group));
      bytes.push_back(constant_bytes(opt.graph, group));
    }
    auto streams = [&](size_t i) {
      return bytes[i] >= t_.min_bytes && flops[i] > 0 && flops[i] < t_.max_intensity * static_cast<double>(bytes[i]);
    };
    int moved = 0;
    int64_t moved_bytes = 0;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (!streams(i)) continue;
      for (size_t back = 1; back <= static_cast<size_t>(t_.window) && back <= i; ++back) {
        size_t carrier = i - back;
        if (streams(carrier) || flops[carrier] < t_.carrier_flops_per_byte * static_cast<double>(bytes[i])) continue;
        groups[carrier].prefetched.push_back(largest_constant(opt.graph, groups[i]));
        ++moved;
        const TensorType& weights = opt.graph.value(groups[carrier].prefetched.back()).type;
        moved_bytes += weights.numel() * weights.dtype.bytes();
        break;
      }
    }
    return "the weights of " + std::to_string(moved) + " memory-bound groups (" + std::to_string(moved_bytes) +
           " bytes) prefetched by earlier groups";
  }

 private:
  Thresholds t_;
};

const std::vector<ParamSpec> kParams = {
    {"min_bytes", ParamType::Int, 512 << 10, "a group streams when its constants add up to at least this many bytes",
     Allowed::at_least(1)},
    {"max_intensity", ParamType::Float, 4.0, "... and its anchor does fewer flops than this per byte of them",
     Allowed::at_least(0)},
    {"carrier_flops_per_byte", ParamType::Float, 4.0,
     "a carrier does at least this many flops per byte it prefetches (time to hide the fetch behind)",
     Allowed::at_least(0)},
    {"window", ParamType::Int, 8, "how many groups back the carrier may be", Allowed::at_least(1)},
    {"min_vector_registers", ParamType::Int, 32,
     "only for targets with at least this many vector registers (the carriers' kernels need the headroom)",
     Allowed::at_least(0)}};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, prefetch_weights,
                       "weights of memory-bound groups (batch-1 classifiers) prefetched by an earlier compute-bound "
                       "group's kernel",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<PrefetchWeights>(
                             Thresholds{p.get_int("min_bytes"), p.get_float("max_intensity"),
                                        p.get_float("carrier_flops_per_byte"), static_cast<int>(p.get_int("window")),
                                        static_cast<int>(p.get_int("min_vector_registers"))});
                       });

}  // namespace tessel::graph
