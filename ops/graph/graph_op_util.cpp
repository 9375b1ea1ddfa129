// Shared helpers of the graph operators (ops/graph/graph_op_util.h).
#include "ops/graph/graph_op_util.h"

#include <algorithm>
#include <cctype>

#include "ops/tiling.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace tessel::ops {

std::vector<std::string> nchw_layouts(const std::vector<std::string>& inputs, const std::vector<int>& ranks,
                                      const Attributes&) {
  std::vector<std::string> out;
  for (int rank : ranks) {
    bool blocked = rank == 5 && !inputs.empty() && graph::layout_rank(inputs[0]) == 5;
    out.push_back(rank == 4 ? "NCHW" : blocked ? inputs[0] : "");
  }
  return out;
}

std::vector<std::string> no_layouts(const std::vector<std::string>&, const std::vector<int>& ranks, const Attributes&) {
  return std::vector<std::string>(ranks.size());
}

int64_t layout_block(const std::string& layout, char dim) {
  size_t at = layout.find(dim);
  if (at == std::string::npos || at == 0) return 0;
  size_t digits = at;
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(layout[digits - 1]))) --digits;
  return digits == at ? 0 : std::stoll(layout.substr(digits, at - digits));
}

std::string nchw_layout(int64_t block) { return block > 0 ? "NCHW" + std::to_string(block) + "c" : "NCHW"; }

bool pointwise_window(const Attributes& attrs, const std::vector<int64_t>& kernel_shape) {
  auto all = [&](const char* name, int64_t v) {
    Ints values = attrs.ints(name, {});
    return std::all_of(values.begin(), values.end(), [&](int64_t x) { return x == v; });
  };
  return kernel_shape.size() >= 4 && kernel_shape[2] == 1 && kernel_shape[3] == 1 && all("strides", 1) &&
         all("pads", 0) && all("dilations", 1);
}

void check_input_count(const std::vector<Tensor>& inputs, size_t min, size_t max, const char* op) {
  if (inputs.size() < min || inputs.size() > max) {
    if (min == max) user_error(op, " takes ", min, " inputs; ", inputs.size(), " were given");
    user_error(op, " takes ", min, " to ", max, " inputs; ", inputs.size(), " were given");
  }
}

void check_rank(const Tensor& t, int rank, const char* op, const char* what) {
  if (t.ndim() != rank) user_error(op, ": ", what, " must be ", rank, "-D; it is ", t.ndim(), "-D");
}

void check_float(const Tensor& t, const char* op) {
  if (t.dtype() != DataType::float32())
    user_error(op, ": element type ", t.dtype().str(), " is not supported; it computes on float32");
}

int normalize_axis(int64_t axis, int rank, const char* op) {
  if (rank == 0) user_error(op, ": a scalar (0-D tensor) has no axis ", axis);
  if (axis < -rank || axis >= rank)
    user_error(op, ": axis ", axis, " is out of range for a ", rank, "-D tensor; use -", rank, "..", rank - 1);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const char* op) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      user_error(op, ": shapes ", shape_str(a), " and ", shape_str(b), " do not broadcast (dimension ", i, ": ", da,
                 " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expr broadcast_read(const Tensor& t, const std::vector<Var>& idx) {
  size_t offset = idx.size() - t.shape().size();
  std::vector<Expr> at;
  for (size_t d = 0; d < t.shape().size(); ++d) at.push_back(t.shape()[d] == 1 ? Expr(0) : Expr(idx[offset + d]));
  return t(at);
}

std::vector<Expr> as_exprs(const std::vector<Var>& idx) { return std::vector<Expr>(idx.begin(), idx.end()); }

namespace {

// Whether every tensor a reduction reads is indexed last by the output's last axis: that axis is
// then contiguous in each read, and vector lanes over it load whole vectors.
bool reads_along_last_axis(const Tensor& t) {
  std::vector<const TensorRead*> reads = tensor_reads(t->body);
  const VarNode* last = t->axis.back().var().as<VarNode>();
  return !reads.empty() && std::all_of(reads.begin(), reads.end(), [&](const TensorRead* r) {
    return !r->indices.empty() && r->indices.back().as<VarNode>() == last;
  });
}

// The reduction's last kept axis split into vector lanes run inside the reduction loops (an NCHWc
// global pool: one vector add per channel block and window point, not a scalar chain per channel);
// returns the outer part, or the axis itself where the lanes would not load whole vectors.
IterVar vectorize_reduction(Stage st, const Tensor& t) {
  IterVar last = st.axis(t.ndim() - 1);
  int64_t lanes = largest_divisor_at_most(t.shape().back(), 16);
  if (lanes < 2 || !reads_along_last_axis(t)) return last;
  auto [outer, inner] = st.split(last, lanes);
  std::vector<IterVar> order = {outer};
  for (const IterVar& r : t->reduce_axis) order.push_back(r);
  order.push_back(inner);
  st.reorder(order);
  st.vectorize(inner);
  return outer;
}

}  // namespace

Schedule schedule_simple_cpu(const Tensor& output) {
  Schedule s = create_schedule({output});
  for (const Tensor& t : topological_order({output})) {
    if (t->is_placeholder() || t.ndim() == 0) continue;
    Stage st = s[t];
    int last = t.ndim() - 1;
    IterVar fused = st.axis(last);
    if (t->is_reduction()) {
      fused = vectorize_reduction(st, t);
    } else {
      auto [outer, lanes] = st.split(st.axis(last), largest_divisor_at_most(t.shape()[last], 16));
      st.vectorize(lanes);
      fused = outer;
    }
    for (int d = last - 1; d >= 0; --d) fused = st.fuse(st.axis(d), fused);
    st.parallel(fused);
  }
  return s;
}

}  // namespace tessel::ops
