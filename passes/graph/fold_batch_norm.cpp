// Graph pass "fold_batch_norm": an inference batch normalization right after a convolution
// (conv2d or conv2d_transpose, optionally followed by its bias_add) becomes part of it. With
// s = scale / sqrt(var + eps) per output channel, the convolution's weight is scaled by s and the
// normalization leaves only a bias, (bias - mean) * s + beta: conv(x, w·s) followed by bias_add.
// The network then runs one convolution and one per-channel add instead of a convolution and a
// normalization.
//
// Assumes constant float32 weights and statistics, and that the convolution's (and bias_add's)
// output feeds only the normalization; anything else is left as it is.
#include <cmath>

#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

// The constant float32 array of `v`, or nullptr.
const NDArray* float_constant(const Graph& g, ValueId v) {
  const NDArray* a = g.constant_value(v);
  return a && a->dtype() == ElementType::of<float>() ? a : nullptr;
}

// The producer of `v` if it is an `op` node whose only reader is one input slot of one node.
const Node* sole_producer(const Graph& g, ValueId v, const char* op) {
  const Node& p = g.node(g.value(v).producer);
  if (p.op != op || g.users(v).size() != 1 || g.is_output(v)) return nullptr;
  return &p;
}

// A normalization that folds, with copies of what folding reads (adding nodes moves the graph's
// node storage, so nothing here points into it).
struct FoldSite {
  Node conv;
  NDArray weight, conv_bias;  // conv_bias: of a bias_add between convolution and normalization, if any
  NDArray scale, beta, mean, var;
  double epsilon = 1e-5;
  ValueId output = -1;  // of the normalization
};

std::optional<FoldSite> find_site(const Graph& g, const Node& bn) {
  const NDArray* stats[4];
  for (int i = 0; i < 4; ++i)
    if (!(stats[i] = float_constant(g, bn.inputs[1 + i]))) return std::nullopt;
  FoldSite s;
  s.scale = *stats[0];
  s.beta = *stats[1];
  s.mean = *stats[2];
  s.var = *stats[3];
  s.epsilon = bn.attrs.get_float("epsilon", 1e-5);
  s.output = bn.outputs[0];
  ValueId x = bn.inputs[0];
  if (const Node* bias = sole_producer(g, x, "bias_add")) {
    const NDArray* b = float_constant(g, bias->inputs[1]);
    if (!b || bias->attrs.get_int("axis", 1) != 1) return std::nullopt;
    s.conv_bias = *b;
    x = bias->inputs[0];
  }
  const Node* conv = sole_producer(g, x, "conv2d");
  if (!conv) conv = sole_producer(g, x, "conv2d_transpose");
  if (!conv) return std::nullopt;
  const NDArray* w = float_constant(g, conv->inputs[1]);
  if (!w) return std::nullopt;
  s.conv = *conv;
  s.weight = *w;
  return s;
}

// The weight scaled per output channel: conv2d's OIHW rows, or conv2d_transpose's IOHW
// [C, O/groups, KH, KW], whose (c, j) kernel belongs to output (c / (C/groups))·(O/groups) + j.
NDArray scaled_weight(const FoldSite& s, const std::vector<float>& scale) {
  NDArray folded = s.weight.copy();
  const std::vector<int64_t>& shape = folded.shape();
  int64_t taps = shape[2] * shape[3];
  bool transposed = s.conv.op == "conv2d_transpose";
  int64_t in_per_group = transposed ? shape[0] / s.conv.attrs.get_int("groups", 1) : 1;
  float* w = folded.data_as<float>();
  for (int64_t a = 0; a < shape[0]; ++a)
    for (int64_t b = 0; b < shape[1]; ++b) {
      float factor = scale[transposed ? a / in_per_group * shape[1] + b : a];
      for (int64_t t = 0; t < taps; ++t) w[(a * shape[1] + b) * taps + t] *= factor;
    }
  return folded;
}

// Replaces the normalization of `s` by its convolution with folded weight and a bias.
void fold(Graph& g, const FoldSite& s) {
  int64_t channels = s.scale.numel();
  std::vector<float> scale(channels);
  NDArray bias = NDArray::empty({channels}, ElementType::of<float>());
  for (int64_t c = 0; c < channels; ++c) {
    scale[c] = s.scale.data_as<float>()[c] / std::sqrt(s.var.data_as<float>()[c] + static_cast<float>(s.epsilon));
    float b = s.conv_bias.defined() ? s.conv_bias.data_as<float>()[c] : 0.0f;
    bias.data_as<float>()[c] = (b - s.mean.data_as<float>()[c]) * scale[c] + s.beta.data_as<float>()[c];
  }
  NDArray folded = scaled_weight(s, scale);
  const std::string& base = s.conv.name;
  std::string layout = g.value(s.conv.inputs[1]).type.layout;
  ValueId wv = g.add_constant(g.unique_value_name(base + ".folded_weight"), folded, layout);
  ValueId bv = g.add_constant(g.unique_value_name(base + ".folded_bias"), bias);
  ValueId y = g.add_op(s.conv.op, {s.conv.inputs[0], wv}, s.conv.attrs);
  ValueId out = g.add_op("bias_add", {y, bv}, {{"axis", int64_t{1}}});
  replace_value(g, s.output, out);
}

// Removes the normalization `bn`, now without readers, and the bias_add and convolution that only
// it read (their constants are left for dce), as the other rewriting passes remove what they
// replace.
void remove_replaced(Graph& g, NodeId bn) {
  ValueId x = g.node(bn).inputs[0];
  g.remove_node(bn);
  while (g.users(x).empty() && !g.is_output(x) && g.node(g.value(x).producer).is_operator()) {
    NodeId producer = g.value(x).producer;
    x = g.node(producer).inputs[0];
    g.remove_node(producer);
  }
}

class FoldBatchNorm : public GraphPass {
 public:
  std::string run(OptimizedGraph& opt) const override {
    Graph& g = opt.graph;
    int folded = 0, kept = 0;
    for (NodeId n : g.topological_order()) {
      if (g.node(n).op != "batch_norm") continue;
      std::optional<FoldSite> site = find_site(g, g.node(n));
      if (!site) {
        ++kept;
        continue;
      }
      fold(g, *site);
      remove_replaced(g, n);
      ++folded;
    }
    if (folded) opt.graph_changed();
    return "folded " + std::to_string(folded) + " batch norms into convolutions, kept " + std::to_string(kept);
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, fold_batch_norm,
                       "batch normalization after a convolution (or a transposed one) folded into its weight and "
                       "a bias",
                       {}, [](const PluginParams&) { return std::make_unique<FoldBatchNorm>(); });

}  // namespace tessel::graph
