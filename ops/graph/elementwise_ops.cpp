// Element-wise graph operators, all of the injective pattern: unary activations (relu, sigmoid,
// tanh, leaky_relu, clip, hard_sigmoid, hard_swish, exp, log, sqrt, abs, neg), binary arithmetic
// with numpy broadcasting (add, sub, mul, div), bias_add, inference batch normalization and cast.
// Their semantics are ONNX's (opset 13), which is what the conformance tests check.
#include <cmath>
#include <limits>

#include "ops/elementwise.h"
#include "ops/graph/graph_op_util.h"
#include "runtime/ndarray.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

using ScalarFn = std::function<Expr(Expr, const Attributes&)>;

// An element-wise operator of one input; `float_only` refuses integer inputs.
FunctionGraphOp::Compute unary(const char* op, ScalarFn fn, bool float_only = true) {
  return [op, fn, float_only](const std::vector<Tensor>& in, const Attributes& attrs) {
    check_input_count(in, 1, 1, op);
    if (float_only) check_float(in[0], op);
    const Tensor& x = in[0];
    return std::vector<Tensor>{compute(
        x.shape(), [&](const std::vector<Var>& i) { return fn(x(as_exprs(i)), attrs); }, op, "injective")};
  };
}

// The math intrinsic `name` of the element (ir/expr.h's Call).
ScalarFn intrinsic(const char* name) {
  return [name](Expr x, const Attributes&) { return call(name, {x}); };
}

Expr constant_like(double value, const Expr& like) { return cast(like.type(), make_float(value)); }

Expr clip_value(Expr x, const Attributes& a) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double lo = a.get_float("min", -kInf), hi = a.get_float("max", kInf);
  if (lo > hi) user_error("clip: min ", lo, " is above max ", hi);
  if (std::isfinite(lo)) x = max(x, constant_like(lo, x));
  if (std::isfinite(hi)) x = min(x, constant_like(hi, x));
  return x;
}

Expr hard_sigmoid_value(Expr x, double alpha, double beta) {
  return min(max(x * make_float(alpha) + make_float(beta), make_float(0.0)), make_float(1.0));
}

// An element-wise operator of two inputs with numpy broadcasting; both of one element type.
FunctionGraphOp::Compute binary(const char* op, std::function<Expr(Expr, Expr)> fn) {
  return [op, fn](const std::vector<Tensor>& in, const Attributes&) {
    check_input_count(in, 2, 2, op);
    if (in[0].dtype() != in[1].dtype())
      user_error(op, ": the inputs are ", in[0].dtype().str(), " and ", in[1].dtype().str(),
                 "; they must be of one type");
    if (in[0].dtype().is_float()) check_float(in[0], op);
    std::vector<int64_t> shape = broadcast_shapes(in[0].shape(), in[1].shape(), op);
    return std::vector<Tensor>{compute(
        shape, [&](const std::vector<Var>& i) { return fn(broadcast_read(in[0], i), broadcast_read(in[1], i)); }, op,
        "injective")};
  };
}

// The IR's integer division floors; ONNX's truncates toward zero, so a negative quotient with a
// remainder is one more than the floor.
Expr divide(Expr a, Expr b) {
  if (a.type().is_float()) return a / b;
  Expr zero = make_zero(a.type());
  Expr negative = (a < zero && b > zero) || (a > zero && b < zero);
  return select(negative && ne(a % b, zero), a / b + make_int(1, a.type()), a / b);
}

std::vector<Tensor> bias_add_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 2, 2, "bias_add");
  return {bias_add(in[0], in[1], normalize_axis(attrs.get_int("axis", 1), in[0].ndim(), "bias_add"), "bias_add")};
}

// y = (x - mean) / sqrt(var + epsilon) * scale + bias, per channel (axis 1).
std::vector<Tensor> batch_norm_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 5, 5, "batch_norm");
  const Tensor& x = in[0];
  check_float(x, "batch_norm");
  if (x.ndim() < 2) user_error("batch_norm: the input must have a channel axis (at least 2-D); it is ", x.ndim(), "-D");
  for (int i = 1; i < 5; ++i)
    if (in[i].ndim() != 1 || in[i].shape()[0] != x.shape()[1])
      user_error("batch_norm: input ", i, " must be 1-D with one value per channel (", x.shape()[1], "); it is ",
                 shape_str(in[i].shape()));
  Expr eps = make_float(attrs.get_float("epsilon", 1e-5));
  return {compute(
      x.shape(),
      [&](const std::vector<Var>& i) {
        Expr c = i[1];
        return (x(as_exprs(i)) - in[3](c)) / call("sqrt", {in[4](c) + eps}) * in[1](c) + in[2](c);
      },
      "batch_norm", "injective")};
}

std::vector<Tensor> cast_compute(const std::vector<Tensor>& in, const Attributes& attrs) {
  check_input_count(in, 1, 1, "cast");
  DataType to = parse_data_type(attrs.get_string("to"));
  const Tensor& x = in[0];
  return {compute(
      x.shape(), [&](const std::vector<Var>& i) { return cast(to, x(as_exprs(i))); }, "cast", "injective")};
}

}  // namespace

TESSEL_REGISTER_GRAPH_OP(relu, "max(x, 0)", OpPattern::Injective,
                         unary(
                             "relu", [](Expr x, const Attributes&) { return max(x, make_zero(x.type())); }, false));
TESSEL_REGISTER_GRAPH_OP(sigmoid, "1 / (1 + exp(-x))", OpPattern::Injective, unary("sigmoid", intrinsic("sigmoid")));
TESSEL_REGISTER_GRAPH_OP(tanh, "hyperbolic tangent", OpPattern::Injective, unary("tanh", intrinsic("tanh")));
TESSEL_REGISTER_GRAPH_OP(exp, "e to the x", OpPattern::Injective, unary("exp", intrinsic("exp")));
TESSEL_REGISTER_GRAPH_OP(log, "natural logarithm", OpPattern::Injective, unary("log", intrinsic("log")));
TESSEL_REGISTER_GRAPH_OP(sqrt, "square root", OpPattern::Injective, unary("sqrt", intrinsic("sqrt")));
TESSEL_REGISTER_GRAPH_OP(abs, "|x|", OpPattern::Injective, unary("abs", intrinsic("fabs")));
TESSEL_REGISTER_GRAPH_OP(neg, "-x", OpPattern::Injective,
                         unary(
                             "neg", [](Expr x, const Attributes&) { return make_zero(x.type()) - x; }, false));
TESSEL_REGISTER_GRAPH_OP(leaky_relu, "x if x >= 0 else alpha*x (attribute alpha, default 0.01)", OpPattern::Injective,
                         unary("leaky_relu", [](Expr x, const Attributes& a) {
                           return select(x >= make_float(0.0), x, x * make_float(a.get_float("alpha", 0.01)));
                         }));
TESSEL_REGISTER_GRAPH_OP(clip, "x limited to [min, max] (float attributes; either may be absent)", OpPattern::Injective,
                         unary("clip", clip_value, false));
TESSEL_REGISTER_GRAPH_OP(hard_sigmoid, "max(0, min(1, alpha*x + beta)) (defaults 0.2, 0.5)", OpPattern::Injective,
                         unary("hard_sigmoid", [](Expr x, const Attributes& a) {
                           return hard_sigmoid_value(x, a.get_float("alpha", 0.2), a.get_float("beta", 0.5));
                         }));
TESSEL_REGISTER_GRAPH_OP(hard_swish, "x * max(0, min(1, x/6 + 1/2))", OpPattern::Injective,
                         unary("hard_swish",
                               [](Expr x, const Attributes&) { return x * hard_sigmoid_value(x, 1.0 / 6, 0.5); }));

TESSEL_REGISTER_GRAPH_OP(add, "a + b, numpy broadcasting", OpPattern::Injective,
                         binary("add", [](Expr a, Expr b) { return a + b; }));
TESSEL_REGISTER_GRAPH_OP(sub, "a - b, numpy broadcasting", OpPattern::Injective,
                         binary("sub", [](Expr a, Expr b) { return a - b; }));
TESSEL_REGISTER_GRAPH_OP(mul, "a * b, numpy broadcasting", OpPattern::Injective,
                         binary("mul", [](Expr a, Expr b) { return a * b; }));
TESSEL_REGISTER_GRAPH_OP(div, "a / b, numpy broadcasting (integers: truncated toward zero, as ONNX)",
                         OpPattern::Injective, binary("div", divide));

TESSEL_REGISTER_GRAPH_OP(bias_add, "data + bias along `axis` (default 1)", OpPattern::Injective, bias_add_compute);
TESSEL_REGISTER_GRAPH_OP(batch_norm, "inference batch normalization over axis 1 (attribute epsilon)",
                         OpPattern::Injective, batch_norm_compute);
TESSEL_REGISTER_GRAPH_OP(cast, "conversion to the element type `to` (\"float32\", \"int64\", ...)",
                         OpPattern::Injective, cast_compute);

}  // namespace tessel::ops
