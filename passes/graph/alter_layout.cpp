// Graph pass "layout": NCHW to channel-blocked NCHW[x]c, the layouts the fast CPU convolutions of
// ops/ compute in (TVM's AlterOpLayout for x86). Convolutions (groups = 1) become conv2d_nchwc, or
// conv2d_winograd_nchwc for 3×3 stride-1 ones where ops::winograd_tile says it pays (parameter
// winograd), and depthwise convolutions depthwise_conv2d_nchwc, their weights re-laid out (or
// Winograd-transformed) here, at compile time, as constants. Element-wise operators (activations,
// bias_add, add/sub/mul/div of two image batches or of a per-channel or scalar broadcast) reading a
// blocked value compute in its layout too, and so do pools (max, average, global) and interleave
// (all its inputs in the first one's block). A
// layout_transform node sits only where a producer and a consumer disagree: before the first
// convolution, before operators that need NCHW (flatten, reshape, dense, concat, ...), at the graph
// outputs, and between two blocked operators whose blocks differ.
//
// How: operators are visited producers first. A converted operator's blocked result is followed by
// a transform back to NCHW that takes over the old value's uses, so the graph stays valid after
// every step and operators left alone read NCHW as before; a converted consumer reads the blocked
// value behind such a transform directly. Nodes nobody reads (such transforms, the weights in their
// old layout) are removed at the end.
//
// Blocks come from the target (ops/conv2d_nchwc.h's choose_conv2d_blocks, choose_depthwise_block):
// the output block ob, and as input block choose_conv2d_blocks' ib, a divisor of the input channels
// (3 for an RGB image): the block the operator-level templates are tuned in, so that records apply
// (parameter conv_input_block=operator), with a transform where the producer's block differs.
// conv_input_block=producer reads the producer's block instead (no transform between two
// convolutions); depthwise convolutions take their producer's block unless depthwise_block=operator.
// On AVX2 the defaults measured fastest: ResNet-18's convolutions run faster on input blocks of 8
// than of 16, transforms included. Constant dense weights are packed into the panels of the
// GEMM schedule (dense_packed), so no kernel run packs them again; at batch 1 in panels of four
// vectors (ops::dense_panel_width). A 1x1 stride-1 convolution whose rows leave a 16-register tile
// too few accumulators (7x7 outputs) is marked pixel_tiles, to be computed over its flattened
// pixels (ops/conv2d_pixels.h; parameter pixel_tiles).
#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_pixels.h"
#include "ops/conv2d_winograd.h"
#include "ops/depthwise_conv2d.h"
#include "ops/gemm.h"
#include "ops/graph/graph_op_util.h"
#include "passes/graph/graph_pass.h"
#include "runtime/ndarray_permute.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {


// `a`, of NCHW shape `s` (numpy-broadcast 4-D: its own shape with leading ones), as
// [N, C/b, H, W, b].
NDArray blocked_channels(const NDArray& a, const std::vector<int64_t>& s, int64_t block) {
  return permuted_copy(a, {s[0], s[1] / block, block, s[2], s[3]}, {0, 1, 3, 4, 2});
}

// The window attributes of a convolution node (what the blocked convolutions take).
Attributes window_attributes(const Attributes& conv) {
  Attributes out;
  for (const char* name : {"strides", "pads", "dilations"})
    if (conv.has(name)) out.set(name, conv.ints(name));
  return out;
}

// [O, I, KH, KW] -> [O/ob, I/ib, KH, KW, ib, ob].
NDArray blocked_kernel(const NDArray& w, int64_t ib, int64_t ob) {
  const auto& s = w.shape();
  return permuted_copy(w, {s[0] / ob, ob, s[1] / ib, ib, s[2], s[3]}, {0, 2, 4, 5, 3, 1});
}

const std::set<std::string> kUnary = {"relu",    "sigmoid", "tanh",         "exp",        "log",  "sqrt",     "abs",
                                      "neg",     "clip",    "leaky_relu",   "hard_sigmoid", "hard_swish", "cast",
                                      "identity"};
const std::set<std::string> kBinary = {"add", "sub", "mul", "div"};
const std::set<std::string> kPools = {"max_pool2d", "avg_pool2d", "global_avg_pool2d", "global_max_pool2d"};

// Where a convolution reading an already blocked value takes its input block from: the producer
// (no transform between the two) or the operator's own choice, the block the operator-level
// workloads are tuned in (a transform where the producer's differs).
struct BlockSource {
  bool conv_input_from_producer, depthwise_from_producer;
  bool winograd;  // 3×3 stride-1 convolutions by Winograd where ops::winograd_tile says it pays
  bool pixel_tiles;  // 1×1 stride-1 ones over their flattened pixels where ops::pixel_tiles_pay says so
};

class LayoutRewriter {
 public:
  LayoutRewriter(Graph& g, const Target& target, BlockSource blocks) : g_(g), target_(target), blocks_(blocks) {}

  std::string run() {
    for (NodeId n : g_.topological_order()) {
      Node node = g_.node(n);  // a copy: adding nodes moves the graph's node storage
      if (!node.is_operator() || node.outputs.size() != 1) continue;
      if (std::optional<ValueId> y = blocked_version(node)) replace(n, *y);
    }
    remove_unused();
    int transforms = 0;
    for (NodeId n : g_.nodes()) transforms += g_.node(n).op == "layout_transform";
    return "blocked " + std::to_string(convs_) + " convolutions (" + std::to_string(winograd_) + " by Winograd), " +
           std::to_string(depthwise_) + " depthwise, " +
           std::to_string(others_) + " other operators; " + std::to_string(dense_) + " dense weights packed; " +
           std::to_string(transforms) + " layout transforms";
  }

  bool changed() const { return convs_ + depthwise_ + others_ + dense_ > 0; }

 private:
  // The blocked node computing what `node` does, added to the graph, or nothing if `node` stays.
  std::optional<ValueId> blocked_version(const Node& node) {
    const TensorType& out = g_.value(node.outputs[0]).type;
    if (node.op == "dense") return packed_dense(node);
    if (out.ndim() != 4 || out.dtype != DataType::float32()) return std::nullopt;
    if (node.op == "conv2d") return convolution(node);
    if (kUnary.count(node.op) || kPools.count(node.op)) return same_op(node, {node.inputs[0]});
    if (node.op == "interleave") return same_op(node, node.inputs);
    if (kBinary.count(node.op)) return binary(node, numpy_nchw(node.inputs[0]), numpy_nchw(node.inputs[1]), node.op);
    if (node.op == "bias_add" && node.attrs.get_int("axis", 1) == 1 && g_.value(node.inputs[1]).type.ndim() == 1) {
      Operand bias{node.inputs[1], {1, g_.value(node.inputs[1]).type.shape[0], 1, 1}};
      return binary(node, numpy_nchw(node.inputs[0]), bias, "add");
    }
    return std::nullopt;
  }

  std::optional<ValueId> convolution(const Node& node) {
    ValueId data = node.inputs[0];
    const NDArray* weight = g_.constant_value(node.inputs[1]);
    const TensorType& x = g_.value(data).type;
    if (!weight || weight->ndim() != 4 || x.ndim() != 4) return std::nullopt;
    int64_t channels = x.shape[1], out_channels = weight->shape()[0], groups = node.attrs.get_int("groups", 1);
    Attributes attrs = window_attributes(node.attrs);
    if (groups == 1) {
      ops::Conv2dBlocks b = ops::choose_conv2d_blocks(channels, out_channels, 1, target_);
      int64_t ib = blocks_.conv_input_from_producer && block_of(data) ? block_of(data) : b.ib;
      ++convs_;
      if (int64_t m = winograd_tile(node, *weight)) {
        // The block its tuning records are measured in (ops::winograd_instance's).
        ValueId in = in_layout(data, ops::nchw_layout(ops::winograd_input_block(channels, target_)));
        ++winograd_;
        attrs.set("tile", m);
        std::string layout = "AAOC" + std::to_string(b.ob) + "o";
        ValueId w = add_weight(node.inputs[1], layout, [&] { return ops::winograd_weights(*weight, m, b.ob); });
        return g_.add_op("conv2d_winograd_nchwc", {in, w}, attrs);
      }
      if (blocks_.pixel_tiles && ops::pointwise_window(node.attrs, weight->shape()) &&
          ops::pixel_tiles_pay(x.shape[3], b.ob, target_.cpu()))
        attrs.set("pixel_tiles", 1);
      std::string layout = "OIHW" + std::to_string(ib) + "i" + std::to_string(b.ob) + "o";
      ValueId w = add_weight(node.inputs[1], layout, [&] { return blocked_kernel(*weight, ib, b.ob); });
      return g_.add_op("conv2d_nchwc", {in_layout(data, ops::nchw_layout(ib)), w}, attrs);
    }
    if (groups == channels && out_channels == channels && weight->shape()[1] == 1) {
      int64_t block = blocks_.depthwise_from_producer && block_of(data) ? block_of(data)
                                                                         : ops::choose_depthwise_block(channels, target_);
      // [C, 1, KH, KW] as OIHW with O = C, I = 1: [C/b, 1, KH, KW, 1, b]
      std::string layout = "OIHW1i" + std::to_string(block) + "o";
      ValueId w = add_weight(node.inputs[1], layout, [&] { return blocked_kernel(*weight, 1, block); });
      ++depthwise_;
      return g_.add_op("depthwise_conv2d_nchwc", {in_layout(data, ops::nchw_layout(block)), w}, attrs);
    }
    return std::nullopt;
  }

  // dense(x, W) with a constant W: dense_packed reading W's panels, packed here instead of in
  // every run, the last panel zero-padded where the panel width does not divide the outputs.
  std::optional<ValueId> packed_dense(const Node& node) {
    const NDArray* w = g_.constant_value(node.inputs[1]);
    const TensorType& x = g_.value(node.inputs[0]).type;
    if (!w || w->ndim() != 2 || x.dtype != DataType::float32() || x.ndim() != 2) return std::nullopt;
    int64_t n = w->shape()[0], k = w->shape()[1], bn = ops::dense_panel_width(x.shape[0], n, target_);
    int64_t padded = (n + bn - 1) / bn * bn;
    NDArray rows = *w;
    if (padded != n) {  // W's rows, then zero rows up to a whole panel
      rows = NDArray::zeros({padded, k}, w->dtype());
      std::memcpy(rows.data(), w->data(), w->nbytes());
    }
    ValueId panels = g_.add_constant(g_.unique_value_name(g_.value(node.inputs[1]).name + ".panels"),
                                     permuted_copy(rows, {padded / bn, bn, k}, {0, 2, 1}));
    ++dense_;
    return g_.add_op("dense_packed", {node.inputs[0], panels}, {{"units", n}});
  }

  // `node`'s operator on `inputs` blocked as the first one, when that one already is (the others
  // transformed to its block where they differ).
  std::optional<ValueId> same_op(const Node& node, const std::vector<ValueId>& inputs) {
    int64_t block = block_of(inputs[0]);
    if (!block) return std::nullopt;
    ++others_;
    std::vector<ValueId> blocked;
    for (ValueId v : inputs) blocked.push_back(in_layout(v, ops::nchw_layout(block)));
    return g_.add_op(node.op, blocked, node.attrs);
  }

  // An operand of an element-wise operator with a 4-D output: the value and the NCHW shape it is
  // broadcast from.
  struct Operand {
    ValueId value;
    std::vector<int64_t> shape;
  };

  // `v` as numpy broadcasting reads it against a 4-D value: its shape with leading ones.
  Operand numpy_nchw(ValueId v) const {
    const TensorType& t = g_.value(v).type;
    std::vector<int64_t> shape(std::max(0, 4 - t.ndim()), 1);
    shape.insert(shape.end(), t.shape.begin(), t.shape.end());
    return {v, shape};
  }

  // `op` of a and b (broadcasting to the 4-D output) in the block of whichever is blocked: the
  // other converted if it is an image batch of the output's channels or a constant broadcast
  // along them, kept if it broadcasts along every channel (a scalar).
  std::optional<ValueId> binary(const Node& node, const Operand& a, const Operand& b, const std::string& op) {
    int64_t block = block_of(a.value) ? block_of(a.value) : block_of(b.value);
    if (!block) return std::nullopt;
    int64_t channels = g_.value(node.outputs[0]).type.shape[1];
    std::optional<ValueId> ba = operand(a, channels, block), bb = operand(b, channels, block);
    if (!ba || !bb) return std::nullopt;
    ++others_;
    Attributes attrs = op == node.op ? node.attrs : Attributes{};
    return g_.add_op(op, {*ba, *bb}, attrs);
  }

  // Operand `o` of an element-wise operator with a `channels`-channel output, in blocks of `block`.
  std::optional<ValueId> operand(const Operand& o, int64_t channels, int64_t block) {
    ValueId v = o.value;
    const TensorType& t = g_.value(v).type;
    const std::vector<int64_t>& shape = o.shape;
    if (shape.size() != 4) return std::nullopt;
    if (std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d == 1; })) return v;
    if (shape[1] != channels) return std::nullopt;
    if (t.ndim() == 4 && !g_.constant_value(v)) return in_layout(v, ops::nchw_layout(block));
    const NDArray* c = g_.constant_value(v);
    if (!c) return std::nullopt;
    NDArray blocked = blocked_channels(*c, shape, block);
    return g_.add_constant(g_.unique_value_name(g_.value(v).name + "." + ops::nchw_layout(block)), blocked,
                           ops::nchw_layout(block));
  }

  // The Winograd output tile for convolution `node` (0: the direct convolution).
  int64_t winograd_tile(const Node& node, const NDArray& weight) const {
    const auto& w = weight.shape();
    const TensorType& out = g_.value(node.outputs[0]).type;
    Ints ones = {1, 1};
    bool three_by_three = w[2] == 3 && w[3] == 3 && node.attrs.ints("strides", ones) == ones &&
                          node.attrs.ints("dilations", ones) == ones;
    if (!blocks_.winograd || !three_by_three) return 0;
    return ops::winograd_tile(w[1], w[0], out.shape[2], out.shape[3]);
  }

  // `original` re-laid out as `layout` by `make`, once per weight and layout.
  ValueId add_weight(ValueId original, const std::string& layout, const std::function<NDArray()>& make) {
    auto key = std::make_pair(original, layout);
    auto it = weights_.find(key);
    if (it != weights_.end()) return it->second;
    ValueId w = g_.add_constant(g_.unique_value_name(g_.value(original).name + "." + layout), make(), layout);
    return weights_[key] = w;
  }

  // The channel block `v` is available in without a transform (0: NCHW only).
  int64_t block_of(ValueId v) const {
    auto it = blocked_.find(v);
    return it == blocked_.end() ? 0 : ops::layout_block(g_.value(it->second).type.layout, 'c');
  }
  // The blocked value `v` was transformed back from, or `v`.
  ValueId blocked_source(ValueId v) const {
    auto it = blocked_.find(v);
    return it == blocked_.end() ? v : it->second;
  }

  // `v` in `layout`: itself, the blocked value behind it, or a transform (one per value and layout).
  ValueId in_layout(ValueId v, const std::string& layout) {
    ValueId from = blocked_source(v);
    if (g_.value(from).type.layout == layout) return from;
    auto key = std::make_pair(from, layout);
    auto it = transforms_.find(key);
    if (it != transforms_.end()) return it->second;
    std::string source = g_.value(from).type.layout.empty() ? "NCHW" : g_.value(from).type.layout;
    ValueId t = g_.add_op("layout_transform", {from}, {{"src_layout", source}, {"dst_layout", layout}});
    return transforms_[key] = t;
  }

  // `n`'s output replaced by `y`; a blocked `y` transformed back to NCHW, which `n`'s readers read
  // until they are converted themselves.
  void replace(NodeId n, ValueId y) {
    ValueId old = g_.node(n).outputs[0];
    if (g_.value(y).type.layout != g_.value(old).type.layout) {
      ValueId back =
          g_.add_op("layout_transform", {y}, {{"src_layout", g_.value(y).type.layout}, {"dst_layout", "NCHW"}});
      transforms_[{y, "NCHW"}] = back;
      blocked_[back] = y;
      y = back;
    }
    replace_value(g_, old, y);
    g_.remove_node(n);
  }

  void remove_unused() {
    std::vector<NodeId> order = g_.topological_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Node& node = g_.node(*it);
      if (node.is_input()) continue;
      bool used = false;
      for (ValueId v : node.outputs) used = used || g_.is_output(v) || !g_.users(v).empty();
      if (!used) g_.remove_node(*it);
    }
  }

  Graph& g_;
  const Target& target_;
  BlockSource blocks_;
  std::map<ValueId, ValueId> blocked_;  // a transform back to NCHW -> the blocked value it reads
  std::map<std::pair<ValueId, std::string>, ValueId> transforms_;
  std::map<std::pair<ValueId, std::string>, ValueId> weights_;
  int convs_ = 0, winograd_ = 0, depthwise_ = 0, others_ = 0, dense_ = 0;
};

class AlterLayout : public GraphPass {
 public:
  explicit AlterLayout(BlockSource blocks) : blocks_(blocks) {}
  std::string run(OptimizedGraph& opt) const override {
    if (!opt.target.is_cpu()) return "nothing: blocked layouts are for CPU targets, not " + opt.target.kind();
    LayoutRewriter rewriter(opt.graph, opt.target, blocks_);
    std::string what = rewriter.run();
    if (rewriter.changed()) opt.graph_changed();
    return what;
  }

 private:
  BlockSource blocks_;
};

const std::vector<ParamSpec> kParams = {
    {"conv_input_block", ParamType::String, "operator",
     "the input block of a convolution reading a blocked value: 'operator' (choose_conv2d_blocks', "
     "the block its tuning records were measured in; a transform where the producer's differs) or "
     "'producer' (the producer's block, no transform between convolutions)",
     Allowed::one_of({"operator", "producer"})},
    {"depthwise_block", ParamType::String, "producer",
     "the block of a depthwise convolution reading a blocked value: 'producer' or 'operator' (as above)",
     Allowed::one_of({"operator", "producer"})},
    {"winograd", ParamType::Bool, true,
     "3x3 stride-1 convolutions by Winograd's F(m x m, 3 x 3), weights transformed at compile time, where "
     "ops::winograd_tile says it pays (m = 4 from 16 tiles of 4 x 4, m = 2 on 7 x 7; 64 channels or more)"},
    {"pixel_tiles", ParamType::Bool, true,
     "1x1 stride-1 unpadded convolutions computed over their flattened pixels (attribute pixel_tiles of "
     "conv2d_nchwc) where ops::pixel_tiles_pay says it pays: 16 vector registers, outputs at most 14 wide whose "
     "row tiles leave one with too few accumulators (7 x 7)"},
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, layout,
                       "NCHW to NCHW[x]c: blocked convolutions, element-wise ops and pools, transforms only where "
                       "layouts disagree; constant dense weights packed",
                       kParams, [](const PluginParams& p) {
                         return std::make_unique<AlterLayout>(
                             BlockSource{p.get_string("conv_input_block") == "producer",
                                         p.get_string("depthwise_block") == "producer",
                                         p.get_bool("winograd"), p.get_bool("pixel_tiles")});
                       });

}  // namespace tessel::graph
