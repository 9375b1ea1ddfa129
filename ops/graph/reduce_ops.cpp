// Reductions as graph operators: reduce_sum / reduce_mean / reduce_max / reduce_min over a set
// of axes (the reduction pattern), global average and max pooling (reductions over H and W that
// keep them as 1), and softmax / log_softmax over one axis (opaque: reductions and element-wise
// stages together). Their stages are tagged "reduce" and "softmax" (ops/graph/simple_schedules.cpp).
//
// Attributes: axes (default: all; negative counts from the end), keepdims (default 1); axis for
// the softmaxes (default -1).
#include <algorithm>

#include "ops/graph/graph_op_util.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

// Sorted, distinct, non-negative axes; all of them when `axes` is empty.
std::vector<int> normalize_axes(const Ints& axes, int rank, const char* op) {
  if (rank == 0) user_error(op, ": a scalar (0-D tensor) has nothing to reduce");
  std::vector<int> out;
  for (int64_t a : axes) out.push_back(normalize_axis(a, rank, op));
  if (axes.empty())
    for (int d = 0; d < rank; ++d) out.push_back(d);
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) user_error(op, ": an axis is given twice");
  return out;
}

// `combiner` of x over `axes`; reduced dimensions kept as 1 or dropped.
Tensor reduce(const Tensor& x, const std::vector<int>& axes, bool keepdims, ReduceOp combiner,
              const std::string& name) {
  std::vector<int64_t> shape;
  std::vector<IterVar> raxes;
  for (int d = 0; d < x.ndim(); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (reduced) raxes.push_back(reduce_axis(x.shape()[d], "r" + std::to_string(d)));
    if (!reduced || keepdims) shape.push_back(reduced ? 1 : x.shape()[d]);
  }
  return compute(
      shape,
      [&](const std::vector<Var>& idx) {
        std::vector<Expr> at;
        size_t next_out = 0, next_reduce = 0;
        for (int d = 0; d < x.ndim(); ++d) {
          bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
          if (reduced) {
            at.push_back(raxes[next_reduce++].var());
            if (keepdims) ++next_out;
          } else {
            at.push_back(idx[next_out++]);
          }
        }
        Expr read = x(at);
        switch (combiner) {
          case ReduceOp::Sum:
            return sum(read, raxes);
          case ReduceOp::Max:
            return max_reduce(read, raxes);
          case ReduceOp::Min:
            return min_reduce(read, raxes);
        }
        return Expr();
      },
      name, "reduce");
}

Tensor mean(const Tensor& x, const std::vector<int>& axes, bool keepdims, const std::string& name) {
  Tensor total = reduce(x, axes, keepdims, ReduceOp::Sum, name + ".sum");
  int64_t count = 1;
  for (int a : axes) count *= x.shape()[a];
  return compute(
      total.shape(), [&](const std::vector<Var>& i) { return total(as_exprs(i)) / cast(x.dtype(), Expr(count)); }, name,
      "reduce");
}

FunctionGraphOp::Compute reduction(const char* op, ReduceOp combiner, bool average) {
  return [=](const std::vector<Tensor>& in, const Attributes& attrs) {
    check_input_count(in, 1, 1, op);
    if (average) check_float(in[0], op);
    std::vector<int> axes = normalize_axes(attrs.ints("axes", {}), in[0].ndim(), op);
    bool keepdims = attrs.get_int("keepdims", 1) != 0;
    return std::vector<Tensor>{average ? mean(in[0], axes, keepdims, op) : reduce(in[0], axes, keepdims, combiner, op)};
  };
}

FunctionGraphOp::Compute global_pool(const char* op, bool average) {
  return [=](const std::vector<Tensor>& in, const Attributes&) {
    check_input_count(in, 1, 1, op);
    if (in[0].ndim() != 4 && in[0].ndim() != 5)
      user_error(op, ": data must be 4-D (NCHW) or 5-D (NCHW[x]c); it is ", in[0].ndim(), "-D");
    check_float(in[0], op);
    return std::vector<Tensor>{average ? mean(in[0], {2, 3}, true, op)
                                       : reduce(in[0], {2, 3}, true, ReduceOp::Max, op)};
  };
}

// softmax(x) = exp(x - max) / sum(exp(x - max)); log_softmax(x) = x - max - log(sum(exp(x - max))).
FunctionGraphOp::Compute softmax(const char* op, bool logarithm) {
  return [=](const std::vector<Tensor>& in, const Attributes& attrs) {
    check_input_count(in, 1, 1, op);
    const Tensor& x = in[0];
    check_float(x, op);
    int axis = normalize_axis(attrs.get_int("axis", -1), x.ndim(), op);
    Tensor top = reduce(x, {axis}, true, ReduceOp::Max, std::string(op) + ".max");
    auto kept = [&](const std::vector<Var>& i) {
      std::vector<Expr> at = as_exprs(i);
      at[axis] = Expr(0);
      return at;
    };
    Tensor shifted = compute(
        x.shape(),
        [&](const std::vector<Var>& i) {
          Expr d = x(as_exprs(i)) - top(kept(i));
          return logarithm ? d : call("exp", {d});
        },
        std::string(op) + ".shifted", "softmax");
    Tensor total =
        logarithm
            ? reduce(compute(
                         x.shape(), [&](const std::vector<Var>& i) { return call("exp", {shifted(as_exprs(i))}); },
                         std::string(op) + ".exp", "softmax"),
                     {axis}, true, ReduceOp::Sum, std::string(op) + ".sum")
            : reduce(shifted, {axis}, true, ReduceOp::Sum, std::string(op) + ".sum");
    return std::vector<Tensor>{compute(
        x.shape(),
        [&](const std::vector<Var>& i) {
          Expr s = shifted(as_exprs(i));
          return logarithm ? s - call("log", {total(kept(i))}) : s / total(kept(i));
        },
        op, "softmax")};
  };
}

}  // namespace

TESSEL_REGISTER_GRAPH_OP(reduce_sum, "sum over axes (axes, keepdims)", OpPattern::Reduction,
                         reduction("reduce_sum", ReduceOp::Sum, false));
TESSEL_REGISTER_GRAPH_OP(reduce_mean, "mean over axes (axes, keepdims)", OpPattern::Reduction,
                         reduction("reduce_mean", ReduceOp::Sum, true));
TESSEL_REGISTER_GRAPH_OP(reduce_max, "maximum over axes (axes, keepdims)", OpPattern::Reduction,
                         reduction("reduce_max", ReduceOp::Max, false));
TESSEL_REGISTER_GRAPH_OP(reduce_min, "minimum over axes (axes, keepdims)", OpPattern::Reduction,
                         reduction("reduce_min", ReduceOp::Min, false));
TESSEL_REGISTER_GRAPH_OP(global_avg_pool2d, "mean over H and W of NCHW or NCHW[x]c data, kept as 1x1", OpPattern::Reduction,
                         global_pool("global_avg_pool2d", true), nchw_layouts);
TESSEL_REGISTER_GRAPH_OP(global_max_pool2d, "maximum over H and W of NCHW or NCHW[x]c data, kept as 1x1", OpPattern::Reduction,
                         global_pool("global_max_pool2d", false), nchw_layouts);
TESSEL_REGISTER_GRAPH_OP(softmax, "softmax along `axis` (default -1)", OpPattern::Opaque, softmax("softmax", false));
TESSEL_REGISTER_GRAPH_OP(log_softmax, "log of softmax along `axis` (default -1)", OpPattern::Opaque,
                         softmax("log_softmax", true));

}  // namespace tessel::ops
