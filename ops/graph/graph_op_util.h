// What the graph operators of ops/graph/ share: a graph operator made of a pattern and a compute
// function, checks of input counts and ranks, axis normalization, numpy broadcasting, and the
// simple CPU schedule of operators that have no tuned family of their own.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/graph/op.h"
#include "ir/schedule.h"
#include "support/registry.h"

namespace tessel::ops {

using graph::Attributes;
using graph::Ints;
using graph::OpPattern;

// A graph operator given by its pattern and a compute function; what ops/graph/ registers.
class FunctionGraphOp : public graph::GraphOp {
 public:
  using Compute = std::function<std::vector<Tensor>(const std::vector<Tensor>&, const Attributes&)>;
  using Layouts = std::function<std::vector<std::string>(const std::vector<std::string>&, const std::vector<int>&,
                                                         const Attributes&)>;
  FunctionGraphOp(OpPattern pattern, Compute compute, Layouts layouts = nullptr)
      : pattern_(pattern), compute_(std::move(compute)), layouts_(std::move(layouts)) {}
  OpPattern pattern() const override { return pattern_; }
  std::vector<Tensor> compute(const std::vector<Tensor>& inputs, const Attributes& attrs) const override {
    return compute_(inputs, attrs);
  }
  std::vector<std::string> output_layouts(const std::vector<std::string>& inputs, const std::vector<int>& ranks,
                                          const Attributes& attrs) const override {
    return layouts_ ? layouts_(inputs, ranks, attrs) : GraphOp::output_layouts(inputs, ranks, attrs);
  }

 private:
  OpPattern pattern_;
  Compute compute_;
  Layouts layouts_;
};

// Registers a FunctionGraphOp under `name` (a graph_op plugin); `tessel plugins` shows the
// description followed by the op pattern ("max(x, 0) [injective]").
#define TESSEL_REGISTER_GRAPH_OP(name, description, pattern, ...)                                          \
  TESSEL_REGISTER_PLUGIN(::tessel::graph::GraphOp, name,                                                   \
                         std::string(description) + " [" + ::tessel::graph::op_pattern_name(pattern) + "]", \
                         {}, [](const ::tessel::PluginParams&) {                                           \
                           return std::make_unique<::tessel::ops::FunctionGraphOp>(pattern, __VA_ARGS__);  \
                         })

// Output layouts: "NCHW" for every 4-D output, the first input's layout for 5-D ones (operators
// whose output is an image batch in the layout of their input: pools on NCHW[x]c data).
std::vector<std::string> nchw_layouts(const std::vector<std::string>&, const std::vector<int>& ranks,
                                      const Attributes&);

// Output layouts: none (operators that move dimensions around, so no input layout carries over).
std::vector<std::string> no_layouts(const std::vector<std::string>&, const std::vector<int>& ranks, const Attributes&);

// The block size of the lower-case (inner) dimension `dim` of `layout`: layout_block("NCHW16c", 'c')
// is 16, layout_block("OIHW8i16o", 'o') 16; 0 when the layout does not split that dimension.
int64_t layout_block(const std::string& layout, char dim);
// The image-batch layout with channels in blocks of `block`: "NCHW16c"; plain "NCHW" for block 0.
std::string nchw_layout(int64_t block);

// Whether a convolution with these attributes and a kernel of `kernel_shape` (OIHW, or blocked
// OIHW[x]i[y]o: its dimensions 2 and 3 are the window) is 1x1, stride 1, unpadded and undilated:
// each output pixel reads only the same pixel of its input.
bool pointwise_window(const Attributes& attrs, const std::vector<int64_t>& kernel_shape);

// UserError unless there are between `min` and `max` inputs.
void check_input_count(const std::vector<Tensor>& inputs, size_t min, size_t max, const char* op);
// UserError unless `t` has `rank` dimensions.
void check_rank(const Tensor& t, int rank, const char* op, const char* what);
// UserError unless `t` is float32.
void check_float(const Tensor& t, const char* op);
// axis in [-rank, rank) made non-negative; UserError naming `op` otherwise (and for scalars).
int normalize_axis(int64_t axis, int rank, const char* op);

// The numpy broadcast of two shapes (aligned at the right; a 1 stretches); UserError if they do
// not broadcast.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const char* op);
// The element of `t` read at output index `idx` of a broadcast whose result has idx.size() dims.
Expr broadcast_read(const Tensor& t, const std::vector<Var>& idx);

// The index vector of a compute body as expressions.
std::vector<Expr> as_exprs(const std::vector<Var>& idx);

// A compute stage per output point; each stage at the root, its leading data-parallel axes fused
// and run in parallel, the innermost vectorized where it is data-parallel and divides evenly (in a
// reduction, where every read is indexed last by it, its lanes inside the reduction loops).
// The default of operators that are neither injective nor a tuned family (softmax, reductions,
// batched matmul).
Schedule schedule_simple_cpu(const Tensor& output);

}  // namespace tessel::ops
