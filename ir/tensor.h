// Tensor expressions: the declarative description of an operator (TVM's "te").
//
// A tensor is the output of an operation: a placeholder (an input) or a compute, whose body gives
// the value at each output index as an expression of the axis variables and of elements of other
// tensors. A compute whose body is a reduction (sum, max, min over reduction axes) is a reduction.
// Shapes are constant; a tensor has one output.
//
//   Tensor A = placeholder({M, K}, DataType::float32(), "A");
//   IterVar k = reduce_axis(K, "k");
//   Tensor C = compute({M, N}, [&](Var i, Var j) { return sum(A(i, k) * B(k, j), {k}); }, "C");
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel {

enum class OpKind : uint8_t { Placeholder, Compute };

struct OperationNode {
  OpKind op_kind;
  std::string name;
  std::string tag;  // what the op computes ("conv2d", "injective", ...), for schedules and fusion
  DataType dtype;
  std::vector<int64_t> shape;
  // compute only
  std::vector<IterVar> axis;         // one data-parallel axis per output dimension
  std::vector<IterVar> reduce_axis;  // the axes of the body's Reduce, if any
  Expr body;

  bool is_placeholder() const { return op_kind == OpKind::Placeholder; }
  bool is_reduction() const { return !reduce_axis.empty(); }
};

class Tensor : public Handle<OperationNode> {
 public:
  using Handle::Handle;
  const std::string& name() const { return get()->name; }
  DataType dtype() const { return get()->dtype; }
  const std::vector<int64_t>& shape() const { return get()->shape; }
  int ndim() const { return static_cast<int>(get()->shape.size()); }
  const IterVar& axis(int i) const;
  const IterVar& reduce_axis(int i) const;

  // An element read, for use inside another compute's body.
  Expr operator()(std::vector<Expr> indices) const;
  template <typename... Idx>
  Expr operator()(const Idx&... indices) const {
    return (*this)(std::vector<Expr>{index_expr(indices)...});
  }

 private:
  static Expr index_expr(const IterVar& iv) { return iv.var(); }
  static Expr index_expr(const Expr& e) { return e; }
};

Tensor placeholder(std::vector<int64_t> shape, DataType dtype, std::string name);

using ComputeBody = std::function<Expr(const std::vector<Var>&)>;
Tensor compute(std::vector<int64_t> shape, const ComputeBody& body, std::string name, std::string tag = "");
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var)>& body, std::string name, std::string tag = "");
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var)>& body, std::string name, std::string tag = "");
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var, Var)>& body, std::string name,
               std::string tag = "");
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var, Var, Var)>& body,
               std::string name, std::string tag = "");
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var, Var, Var, Var)>& body,
               std::string name, std::string tag = "");

// A reduction axis over [0, extent) (or a given range).
IterVar reduce_axis(int64_t extent, std::string name);
IterVar reduce_axis(Range dom, std::string name);

// Reductions; `condition` restricts which points count. A sum may start from `init`, an expression
// of the compute's axes (a convolution's bias: its accumulators then start at the bias, and no
// add follows the sum), instead of zero.
Expr sum(Expr source, std::vector<IterVar> axes, Expr condition = Expr(), Expr init = Expr());
Expr max_reduce(Expr source, std::vector<IterVar> axes, Expr condition = Expr());
Expr min_reduce(Expr source, std::vector<IterVar> axes, Expr condition = Expr());

// The identity of a combiner for a type: 0 for sum, the lowest value for max, the highest for min.
Expr reduce_identity(ReduceOp op, DataType type);
// combiner(a, b).
Expr reduce_combine(ReduceOp op, Expr a, Expr b);

// Elements of `t` (the product of its shape) and their bytes, for the cache-size rules of schedules.
int64_t tensor_elements(const Tensor& t);
int64_t tensor_bytes(const Tensor& t);

// Every tensor read in `e`, in visit order, repeats included; the nodes live as long as `e`.
std::vector<const TensorRead*> tensor_reads(const Expr& e);
// The tensors that op's body reads, in first-read order, without repeats.
std::vector<Tensor> input_tensors(const Tensor& op);
// The same without those only a reduction's initial value reads: the operands the operator
// combines (a convolution's data and kernel, not the bias its sum starts from).
std::vector<Tensor> operand_tensors(const Tensor& op);
// All operations that `outputs` depend on, producers before consumers.
std::vector<Tensor> topological_order(const std::vector<Tensor>& outputs);

}  // namespace tessel
