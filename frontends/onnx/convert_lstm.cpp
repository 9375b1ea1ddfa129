// The ONNX LSTM, unrolled over its static sequence length into graph operators, per direction
// (forward, reverse or both):
//   X·Wᵀ + Wb + Rb for every step at once (one dense), then per step
//   gates = that row block + H·Rᵀ, split into i, o, f, c (ONNX's order)
//   i = σ(i + Pi⊙C), f = σ(f + Pf⊙C), c = tanh(c), C' = f⊙C + i⊙c, o = σ(o + Po⊙C'), H' = o⊙tanh(C')
// with absent initial states taken as zero (their terms left out). The weights must be
// initializers; the default activations only; clip, input_forget and sequence_lens shorter than
// the sequence are not supported.
#include "frontends/onnx/import_context.h"

namespace tessel::frontend {

namespace {

using graph::Attributes;
using graph::Ints;

constexpr int64_t kMaxSteps = 1024;  // unrolled, every step is a dozen nodes

// Row `index` of a static array's first dimension, optionally only elements [begin, begin+count).
NDArray row(const NDArray& a, int64_t index, int64_t begin = 0, int64_t count = -1) {
  int64_t size = a.numel() / a.shape()[0];
  if (count < 0) count = size;
  std::vector<float> values(count);
  const float* src = a.data_as<float>() + index * size + begin;
  std::copy(src, src + count, values.begin());
  std::vector<int64_t> shape(a.shape().begin() + 1, a.shape().end());
  if (count != size) shape = {count};
  return NDArray::from_vector<float>(shape, values);
}

struct LstmSpec {
  int64_t steps, batch, hidden, directions;
  std::string direction;
};

LstmSpec check_lstm(ImportContext& ctx, const OnnxNode& node, ValueId x) {
  if (node.has_attr("clip")) ctx.unsupported("cell clipping (clip) is not supported");
  if (node.attr_int("input_forget", 0)) ctx.unsupported("input_forget=1 is not supported");
  std::vector<std::string> acts = node.attr_strings("activations");
  for (size_t i = 0; i < acts.size(); ++i)
    if (acts[i] != (i % 3 == 0 ? "Sigmoid" : "Tanh"))
      ctx.unsupported("activations other than the default (Sigmoid, Tanh, Tanh) are not supported");
  if (ctx.type(x).dtype != DataType::float32())
    ctx.unsupported("element type ", ctx.type(x).dtype.str(), " is not supported (only FLOAT)");
  if (ctx.type(x).ndim() != 3) user_error("X must be 3-D; it is ", ctx.type(x).ndim(), "-D");
  LstmSpec s{ctx.type(x).shape[0], ctx.type(x).shape[1], node.attr_int("hidden_size", 0), 1,
             node.attr_string("direction", "forward")};
  if (s.direction == "bidirectional")
    s.directions = 2;
  else if (s.direction != "forward" && s.direction != "reverse")
    user_error("direction '", s.direction, "' is not one of forward, reverse, bidirectional");
  if (s.steps > kMaxSteps)
    ctx.unsupported("a sequence of ", s.steps, " steps is longer than the ", kMaxSteps, " Tessel unrolls");
  if (node.has_input(4))
    for (int64_t len : ctx.static_ints(4, "LSTM's sequence_lens"))
      if (len != s.steps) ctx.unsupported("sequence_lens shorter than the sequence are not supported");
  return s;
}

class LstmUnroller {
 public:
  LstmUnroller(ImportContext& ctx, const OnnxNode& node, const LstmSpec& s) : ctx_(ctx), node_(node), s_(s) {}

  // Y [steps, 1, batch, H], Y_h and Y_c [1, batch, H] of direction d.
  std::array<ValueId, 3> direction(ValueId x_flat, int64_t d) {
    NDArray w = ctx_.static_input(1, "LSTM's W"), r = ctx_.static_input(2, "LSTM's R");
    int64_t h4 = 4 * s_.hidden, in = ctx_.type(x_flat).shape[1];
    if (w.shape() != std::vector<int64_t>{s_.directions, h4, in} ||
        r.shape() != std::vector<int64_t>{s_.directions, h4, s_.hidden})
      user_error("W ", shape_str(w.shape()), " or R ", shape_str(r.shape()), " does not fit ", s_.directions,
                 " direction(s), hidden_size ", s_.hidden, " and input size ", in);
    ValueId rd = ctx_.constant(row(r, d), "R");
    ValueId xw = ctx_.emit("bias_add",
                           {ctx_.emit("dense", {x_flat, ctx_.constant(row(w, d), "W")}), ctx_.constant(bias(d), "B")});
    std::optional<ValueId> h = initial_state(5, d), c = initial_state(6, d);
    bool reverse = s_.direction == "reverse" || d == 1;
    std::vector<ValueId> outputs(s_.steps);
    for (int64_t k = 0; k < s_.steps; ++k) {
      int64_t t = reverse ? s_.steps - 1 - k : k;
      ValueId gates =
          ctx_.emit("strided_slice", {xw}, {{"starts", Ints{t * s_.batch}}, {"ends", Ints{(t + 1) * s_.batch}}});
      if (h) gates = ctx_.emit("add", {gates, ctx_.emit("dense", {*h, rd})});
      step(gates, d, h, c);
      outputs[t] = ctx_.reshape(*h, {1, 1, s_.batch, s_.hidden});
    }
    ValueId y = s_.steps == 1 ? outputs[0] : ctx_.emit("concat", outputs, {{"axis", int64_t{0}}});
    return {y, ctx_.reshape(*h, {1, s_.batch, s_.hidden}), ctx_.reshape(*c, {1, s_.batch, s_.hidden})};
  }

 private:
  // Wb + Rb of direction d (zero without B).
  NDArray bias(int64_t d) {
    int64_t h4 = 4 * s_.hidden;
    NDArray out = NDArray::zeros({h4}, DataType::float32());
    if (!node_.has_input(3)) return out;
    NDArray b = ctx_.static_input(3, "LSTM's B");
    if (b.shape() != std::vector<int64_t>{s_.directions, 2 * h4})
      user_error("B must be ", shape_str({s_.directions, 2 * h4}));
    NDArray wb = row(b, d, 0, h4), rb = row(b, d, h4, h4);
    for (int64_t i = 0; i < h4; ++i) out.data_as<float>()[i] = wb.data_as<float>()[i] + rb.data_as<float>()[i];
    return out;
  }

  std::optional<ValueId> initial_state(size_t input, int64_t d) {
    std::optional<ValueId> v = ctx_.optional_input(input);
    if (!v) return std::nullopt;
    if (ctx_.type(*v).shape != std::vector<int64_t>{s_.directions, s_.batch, s_.hidden})
      user_error("initial state ", input, " must be ", shape_str({s_.directions, s_.batch, s_.hidden}));
    ValueId part = ctx_.emit("strided_slice", {*v}, {{"starts", Ints{d}}, {"ends", Ints{d + 1}}});
    return ctx_.reshape(part, {s_.batch, s_.hidden});
  }

  // gate + P⊙C, where there is a peephole and a cell state.
  ValueId peephole(ValueId gate, int64_t d, int which, const std::optional<ValueId>& c) {
    if (!node_.has_input(7) || !c) return gate;
    NDArray p = ctx_.static_input(7, "LSTM's P");
    if (p.shape() != std::vector<int64_t>{s_.directions, 3 * s_.hidden})
      user_error("P must be ", shape_str({s_.directions, 3 * s_.hidden}));
    ValueId pw = ctx_.constant(row(p, d, which * s_.hidden, s_.hidden), "P");
    return ctx_.emit("add", {gate, ctx_.emit("mul", {pw, *c})});
  }

  void step(ValueId gates, int64_t d, std::optional<ValueId>& h, std::optional<ValueId>& c) {
    std::vector<ValueId> g = ctx_.emit_multi("split", {gates}, {{"axis", int64_t{1}}, {"split", Ints(4, s_.hidden)}});
    ValueId i = ctx_.emit("sigmoid", {peephole(g[0], d, 0, c)});
    ValueId f = ctx_.emit("sigmoid", {peephole(g[2], d, 2, c)});
    ValueId candidate = ctx_.emit("tanh", {g[3]});
    ValueId next_c = ctx_.emit("mul", {i, candidate});
    if (c) next_c = ctx_.emit("add", {ctx_.emit("mul", {f, *c}), next_c});
    ValueId o = ctx_.emit("sigmoid", {peephole(g[1], d, 1, next_c)});
    h = ctx_.emit("mul", {o, ctx_.emit("tanh", {next_c})});
    c = next_c;
  }

  ImportContext& ctx_;
  const OnnxNode& node_;
  LstmSpec s_;
};

void convert_lstm(ImportContext& ctx, const OnnxNode& node) {
  ValueId x = ctx.input(0);
  bool batch_first = ctx.opset() >= 14 && node.attr_int("layout", 0) != 0;
  if (batch_first) x = ctx.emit("transpose", {x}, {{"perm", Ints{1, 0, 2}}});
  LstmSpec s = check_lstm(ctx, node, x);
  if (s.hidden <= 0) user_error("hidden_size must be positive");
  ValueId x_flat = ctx.reshape(x, {s.steps * s.batch, ctx.type(x).shape[2]});
  LstmUnroller unroll(ctx, node, s);
  std::array<std::vector<ValueId>, 3> parts;
  for (int64_t d = 0; d < s.directions; ++d) {
    std::array<ValueId, 3> out = unroll.direction(x_flat, d);
    for (int k = 0; k < 3; ++k) parts[k].push_back(out[k]);
  }
  auto joined = [&](int k, int64_t axis) {
    return parts[k].size() == 1 ? parts[k][0] : ctx.emit("concat", parts[k], {{"axis", axis}});
  };
  std::array<ValueId, 3> results{joined(0, 1), joined(1, 0), joined(2, 0)};
  if (batch_first) {
    results[0] = ctx.emit("transpose", {results[0]}, {{"perm", Ints{2, 0, 1, 3}}});
    for (int k = 1; k < 3; ++k) results[k] = ctx.emit("transpose", {results[k]}, {{"perm", Ints{1, 0, 2}}});
  }
  for (int k = 0; k < 3; ++k) ctx.define_output(k, results[k]);
}

const ConverterRegistration registration{{"LSTM", convert_lstm}};

}  // namespace

}  // namespace tessel::frontend
