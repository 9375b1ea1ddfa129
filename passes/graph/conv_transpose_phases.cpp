// Graph pass "conv_transpose_phases": a transposed convolution becomes ordinary convolutions, which
// the layout pass blocks and the conv2d schedules run. The operator itself is a stride-1
// convolution over its input spread out by the stride with zeros (ops/graph/nn_ops.cpp): with
// stride s, all but one in s² of the products it computes are with those zeros.
//
// An output position y = s·q + r (its phase r) reads only the taps ky ≡ r + pad (mod s): ky =
// first + s·j, from input q + shift − j, where first = (r + pad) mod s, shift = (r + pad) div s.
// Each phase is therefore a stride-1 convolution of the input itself, with those taps (flipped, in
// correlation order) as its kernel and the padding that makes it yield the phase's outputs. The
// sy·sx phases are interleaved into the output (graph operator interleave, which the layout pass
// keeps in the phases' blocked layout): one pass over the output instead of products with zeros.
// A DCGAN layer, 4x4 kernel, stride 2, pad 1: four 2x2 convolutions instead of one 4x4 over the
// spread input.
//
// A transposed convolution of a 1x1 input without padding (DCGAN's first layer, from the code) is
// a dense layer instead: out[n, o, ky, kx] = Σ_c x[n, c] · w[c, o, ky, kx].
//
// Needs a constant weight, dilation 1, at most 64 phases, every phase with at least one tap,
// outputs divisible by the stride and padding that is not negative (else the node is kept,
// computed as before).
#include <optional>

#include "passes/graph/graph_pass.h"
#include "runtime/ndarray_permute.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

// One spatial axis of a transposed convolution.
struct Axis {
  int64_t in, kernel, stride, pad_before, out;
};

// The stride-1 convolution computing the outputs s·q + r of an axis: taps first + s·j for j <
// taps, its input padded by pad_before and pad_after.
struct Phase {
  int64_t first_tap, taps, pad_before, pad_after;
};

std::optional<Phase> phase_of(const Axis& a, int64_t r) {
  int64_t first = (r + a.pad_before) % a.stride;
  if (first >= a.kernel) return std::nullopt;  // no tap: the phase is all zeros
  int64_t taps = (a.kernel - first + a.stride - 1) / a.stride;
  int64_t shift = (r + a.pad_before) / a.stride;
  int64_t before = taps - 1 - shift;
  int64_t after = a.out / a.stride + taps - 1 - a.in - before;  // yields out / stride outputs
  if (before < 0 || after < 0) return std::nullopt;
  return Phase{first, taps, before, after};
}

// A transposed convolution this pass rewrites: its operands and axes (height, width).
struct Site {
  Node node;  // a copy: adding nodes moves the graph's node storage
  NDArray weight;  // [C, O/groups, KH, KW]
  int64_t batch = 0, channels = 0, outputs = 0, groups = 1;
  Axis axis[2];
  std::vector<int64_t> output_shape;
  std::string output_layout;

  // The attributes of the dense layer's reshape to the output: its shape and layout (replace_value
  // wants the type it replaces).
  Attributes output_attrs() const { return {{"shape", Ints(output_shape)}, {"layout", output_layout}}; }
};

std::optional<Site> find_site(const Graph& g, const Node& node) {
  const NDArray* w = g.constant_value(node.inputs[1]);
  if (!w || w->dtype() != ElementType::of<float>()) return std::nullopt;
  Ints strides = node.attrs.ints("strides", {1, 1}), dilations = node.attrs.ints("dilations", {1, 1});
  Ints pads = node.attrs.ints("pads", {0, 0, 0, 0});
  if (dilations != Ints{1, 1} || strides.size() != 2 || pads.size() != 4) return std::nullopt;
  Site s;
  s.node = node;
  s.weight = *w;
  const std::vector<int64_t>& x = g.value(node.inputs[0]).type.shape;
  s.output_shape = g.value(node.outputs[0]).type.shape;
  s.output_layout = g.value(node.outputs[0]).type.layout;
  s.batch = x[0], s.channels = x[1], s.outputs = s.output_shape[1];
  s.groups = node.attrs.get_int("groups", 1);
  for (int d = 0; d < 2; ++d) {
    s.axis[d] = {x[2 + d], w->shape()[2 + d], strides[d], pads[d], s.output_shape[2 + d]};
    if (s.axis[d].out % s.axis[d].stride != 0) return std::nullopt;
  }
  return s;
}

// Past this many phases (stride 8 in both axes) a layer would become more kernels than it is worth.
constexpr int64_t kMaxPhases = 64;

// The phases of both axes, or nullopt if one of them cannot be a convolution.
std::optional<std::vector<std::array<Phase, 2>>> phases_of(const Site& s) {
  if (s.axis[0].stride * s.axis[1].stride > kMaxPhases) return std::nullopt;
  std::vector<std::array<Phase, 2>> phases;
  for (int64_t ry = 0; ry < s.axis[0].stride; ++ry)
    for (int64_t rx = 0; rx < s.axis[1].stride; ++rx) {
      std::optional<Phase> py = phase_of(s.axis[0], ry), px = phase_of(s.axis[1], rx);
      if (!py || !px) return std::nullopt;
      phases.push_back({*py, *px});
    }
  return phases;
}

// The OIHW kernel [O, C/groups, taps_y, taps_x] of one phase: its taps of the IOHW weight, flipped.
NDArray phase_kernel(const Site& s, const std::array<Phase, 2>& p) {
  const std::vector<int64_t>& ws = s.weight.shape();  // [C, O/groups, KH, KW]
  int64_t in_per_group = s.channels / s.groups, out_per_group = ws[1];
  int64_t ty = p[0].taps, tx = p[1].taps;
  NDArray k = NDArray::empty({s.outputs, in_per_group, ty, tx}, ElementType::of<float>());
  const float* w = s.weight.data_as<float>();
  float* out = k.data_as<float>();
  for (int64_t o = 0; o < s.outputs; ++o)
    for (int64_t i = 0; i < in_per_group; ++i)
      for (int64_t y = 0; y < ty; ++y)
        for (int64_t x = 0; x < tx; ++x) {
          int64_t c = o / out_per_group * in_per_group + i;
          int64_t ky = p[0].first_tap + s.axis[0].stride * (ty - 1 - y);
          int64_t kx = p[1].first_tap + s.axis[1].stride * (tx - 1 - x);
          *out++ = w[((c * out_per_group + o % out_per_group) * ws[2] + ky) * ws[3] + kx];
        }
  return k;
}

// The phases' convolutions, joined into the output [N, O, OH, OW].
ValueId rewrite_as_phases(Graph& g, const Site& s, const std::vector<std::array<Phase, 2>>& phases) {
  std::vector<ValueId> outs;
  for (const std::array<Phase, 2>& p : phases) {
    ValueId k = g.add_constant(g.unique_value_name(s.node.name + ".phase_weight"), phase_kernel(s, p));
    Attributes attrs{{"strides", Ints{1, 1}},
                     {"pads", Ints{p[0].pad_before, p[1].pad_before, p[0].pad_after, p[1].pad_after}},
                     {"groups", s.groups}};
    outs.push_back(g.add_op("conv2d", {s.node.inputs[0], k}, attrs));
  }
  if (outs.size() == 1) return outs[0];
  return g.add_op("interleave", outs, {{"strides", Ints{s.axis[0].stride, s.axis[1].stride}}});
}

// A 1x1 input without padding: the output is x · w as a matrix [C, O·KH·KW], a dense layer.
bool is_dense(const Site& s) {
  for (const Axis& a : s.axis)
    if (a.in != 1 || a.pad_before != 0 || a.out != a.kernel) return false;
  return s.groups == 1;
}

ValueId rewrite_as_dense(Graph& g, const Site& s) {
  int64_t taps = s.axis[0].kernel * s.axis[1].kernel, rows = s.outputs * taps;
  NDArray wt = permuted_copy(s.weight, {s.channels, rows}, {1, 0});  // dense's W[N, K]: w transposed
  ValueId flat = g.add_op("reshape", {s.node.inputs[0]}, {{"shape", Ints{s.batch, s.channels}}});
  ValueId k = g.add_constant(g.unique_value_name(s.node.name + ".dense_weight"), wt);
  return g.add_op("reshape", {g.add_op("dense", {flat, k})}, s.output_attrs());
}

class ConvTransposePhases : public GraphPass {
 public:
  std::string run(OptimizedGraph& opt) const override {
    Graph& g = opt.graph;
    int phased = 0, dense = 0, kept = 0;
    for (NodeId n : g.topological_order()) {
      if (g.node(n).op != "conv2d_transpose") continue;
      std::optional<Site> site = find_site(g, g.node(n));
      std::optional<std::vector<std::array<Phase, 2>>> phases;
      if (site && is_dense(*site)) {
        replace_value(g, site->node.outputs[0], rewrite_as_dense(g, *site));
        ++dense;
      } else if (site && (phases = phases_of(*site))) {
        replace_value(g, site->node.outputs[0], rewrite_as_phases(g, *site, *phases));
        ++phased;
      } else {
        ++kept;
        continue;
      }
      g.remove_node(n);
    }
    if (phased + dense) opt.graph_changed();
    return "split " + std::to_string(phased) + " transposed convolutions into phase convolutions, made " +
           std::to_string(dense) + " dense, kept " + std::to_string(kept);
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, conv_transpose_phases,
                       "a transposed convolution as one stride-1 convolution per output phase, interleaved "
                       "(no products with the zeros between strided inputs); of a 1x1 input, a dense layer",
                       {}, [](const PluginParams&) { return std::make_unique<ConvTransposePhases>(); });

}  // namespace tessel::graph
