// Construction of placeholder and compute operations, reductions, and dataflow queries.
#include "ir/tensor.h"

#include <initializer_list>
#include <limits>
#include <unordered_set>

#include "ir/visitor.h"
#include "support/error.h"

namespace tessel {

const IterVar& Tensor::axis(int i) const {
  TESSEL_CHECK(i >= 0 && i < static_cast<int>(get()->axis.size()), "axis ", i, " of ", name());
  return get()->axis[i];
}

const IterVar& Tensor::reduce_axis(int i) const {
  if (i < 0 || i >= static_cast<int>(get()->reduce_axis.size()))
    user_error("tensor '", name(), "' has ", get()->reduce_axis.size(), " reduction axes; axis ", i,
               " does not exist");
  return get()->reduce_axis[i];
}

Expr Tensor::operator()(std::vector<Expr> indices) const {
  if (indices.size() != shape().size())
    user_error("tensor '", name(), "' has ", shape().size(), " dimensions but is indexed with ",
               indices.size(), " indices");
  for (const Expr& i : indices)
    if (!i.type().is_index())
      user_error("tensor '", name(), "' is indexed with a ", i.type().str(), " expression; indices must be integers");
  return Expr(std::make_shared<TensorRead>(dtype(), ptr(), std::move(indices)));
}

namespace {

void check_shape(const std::vector<int64_t>& shape, const std::string& name) {
  for (int64_t d : shape)
    if (d <= 0) user_error("tensor '", name, "' has a dimension of size ", d, "; sizes must be positive");
}

}  // namespace

Tensor placeholder(std::vector<int64_t> shape, DataType dtype, std::string name) {
  check_shape(shape, name);
  auto node = std::make_shared<OperationNode>();
  node->op_kind = OpKind::Placeholder;
  node->name = std::move(name);
  node->dtype = dtype;
  node->shape = std::move(shape);
  return Tensor(std::move(node));
}

Tensor compute(std::vector<int64_t> shape, const ComputeBody& body, std::string name, std::string tag) {
  check_shape(shape, name);
  static const char* kAxisNames[] = {"i", "j", "k", "l", "m", "n"};
  auto node = std::make_shared<OperationNode>();
  std::vector<Var> vars;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string axis_name = d < 6 ? kAxisNames[d] : "ax" + std::to_string(d);
    vars.emplace_back(axis_name);
    node->axis.emplace_back(vars.back(), Range{0, Expr(shape[d])}, IterKind::DataParallel);
  }
  Expr value = body(vars);
  if (!value.defined()) user_error("the body of compute '", name, "' returned an undefined expression");
  if (auto* reduce = value.as<Reduce>()) node->reduce_axis = reduce->axes;
  node->op_kind = OpKind::Compute;
  node->name = std::move(name);
  node->tag = std::move(tag);
  node->dtype = value.type();
  node->shape = std::move(shape);
  node->body = std::move(value);
  return Tensor(std::move(node));
}

Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var)>& f, std::string name, std::string tag) {
  return compute(std::move(shape), [&](const std::vector<Var>& v) { return f(v.at(0)); }, std::move(name), std::move(tag));
}
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var)>& f, std::string name,
               std::string tag) {
  return compute(std::move(shape), [&](const std::vector<Var>& v) { return f(v.at(0), v.at(1)); },
                 std::move(name), std::move(tag));
}
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var, Var)>& f, std::string name,
               std::string tag) {
  return compute(std::move(shape), [&](const std::vector<Var>& v) { return f(v.at(0), v.at(1), v.at(2)); },
                 std::move(name), std::move(tag));
}
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var, Var, Var)>& f, std::string name,
               std::string tag) {
  return compute(std::move(shape),
                 [&](const std::vector<Var>& v) { return f(v.at(0), v.at(1), v.at(2), v.at(3)); },
                 std::move(name), std::move(tag));
}
Tensor compute(std::vector<int64_t> shape, const std::function<Expr(Var, Var, Var, Var, Var)>& f,
               std::string name, std::string tag) {
  return compute(std::move(shape),
                 [&](const std::vector<Var>& v) { return f(v.at(0), v.at(1), v.at(2), v.at(3), v.at(4)); },
                 std::move(name), std::move(tag));
}

IterVar reduce_axis(int64_t extent, std::string name) { return reduce_axis(Range{0, Expr(extent)}, std::move(name)); }

IterVar reduce_axis(Range dom, std::string name) {
  const int64_t* extent = as_const_int(dom.extent);
  if (extent && *extent <= 0)
    user_error("reduction axis '", name, "' has extent ", *extent, "; it must be positive");
  return IterVar(Var(std::move(name)), std::move(dom), IterKind::Reduce);
}

namespace {

// A reduction's start is a value of its type at the compute's point, before any reduction axis.
void check_reduce_init(const Expr& init, DataType type, const std::vector<IterVar>& axes) {
  if (init.type() != type)
    user_error("a reduction of ", type.str(), " cannot start from a ", init.type().str(), " value");
  for (const IterVar& a : axes)
    if (uses_var(init, [&](const VarNode* v) { return v == a.var().get(); }))
      user_error("the initial value of a reduction reads its reduction axis '", a.name(),
                 "'; it may read only the compute's own axes");
}

Expr make_reduce(ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition, Expr init = Expr()) {
  if (axes.empty()) user_error("a reduction needs at least one reduction axis");
  for (const IterVar& a : axes)
    if (!a.is_reduce()) user_error("axis '", a.name(), "' is not a reduction axis: create it with reduce_axis()");
  if (!condition.defined()) condition = make_int(1, DataType::boolean());
  DataType t = source.type();
  if (init.defined()) check_reduce_init(init, t, axes);
  return Expr(std::make_shared<Reduce>(t, op, std::move(source), std::move(axes), std::move(condition),
                                       std::move(init)));
}

}  // namespace

Expr sum(Expr source, std::vector<IterVar> axes, Expr condition, Expr init) {
  return make_reduce(ReduceOp::Sum, std::move(source), std::move(axes), std::move(condition), std::move(init));
}
Expr max_reduce(Expr source, std::vector<IterVar> axes, Expr condition) {
  return make_reduce(ReduceOp::Max, std::move(source), std::move(axes), std::move(condition));
}
Expr min_reduce(Expr source, std::vector<IterVar> axes, Expr condition) {
  return make_reduce(ReduceOp::Min, std::move(source), std::move(axes), std::move(condition));
}

Expr reduce_identity(ReduceOp op, DataType type) {
  if (op == ReduceOp::Sum) return make_zero(type);
  bool lowest = op == ReduceOp::Max;
  if (type.is_float()) {
    double inf = std::numeric_limits<double>::infinity();
    return make_float(lowest ? -inf : inf, type);
  }
  int bits = type.bits;
  if (type.is_uint()) return make_int(lowest ? 0 : (bits >= 64 ? -1 : (int64_t{1} << bits) - 1), type);
  int64_t hi = bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  return make_int(lowest ? -hi - 1 : hi, type);
}

Expr reduce_combine(ReduceOp op, Expr a, Expr b) {
  switch (op) {
    case ReduceOp::Sum: return a + b;
    case ReduceOp::Max: return max(a, b);
    case ReduceOp::Min: return min(a, b);
  }
  return Expr();
}

namespace {

class TensorReadCollector : public IRVisitor {
 public:
  std::vector<const TensorRead*> reads;

 protected:
  void visit_node(const TensorRead* op) override {
    reads.push_back(op);
    IRVisitor::visit_node(op);
  }
};

void visit_post_order(const Tensor& t, std::unordered_set<const OperationNode*>& seen, std::vector<Tensor>& order) {
  if (!seen.insert(t.get()).second) return;
  for (const Tensor& in : input_tensors(t)) visit_post_order(in, seen, order);
  order.push_back(t);
}

}  // namespace

int64_t tensor_elements(const Tensor& t) {
  int64_t n = 1;
  for (int64_t extent : t.shape()) n *= extent;
  return n;
}

int64_t tensor_bytes(const Tensor& t) { return tensor_elements(t) * t.dtype().bytes(); }

std::vector<const TensorRead*> tensor_reads(const Expr& e) {
  TensorReadCollector collector;
  collector.visit(e);
  return collector.reads;
}

namespace {

// The tensors `parts` read, in first-read order, without repeats.
std::vector<Tensor> distinct_reads(std::initializer_list<Expr> parts) {
  std::vector<Tensor> tensors;
  std::unordered_set<const OperationNode*> seen;
  for (const Expr& part : parts)
    for (const TensorRead* read : tensor_reads(part))
      if (seen.insert(read->op.get()).second) tensors.emplace_back(read->op);
  return tensors;
}

}  // namespace

std::vector<Tensor> input_tensors(const Tensor& op) {
  if (op->is_placeholder()) return {};
  return distinct_reads({op->body});
}

std::vector<Tensor> operand_tensors(const Tensor& op) {
  const Reduce* reduce = op->is_placeholder() ? nullptr : op->body.as<Reduce>();
  return reduce ? distinct_reads({reduce->source, reduce->condition}) : input_tensors(op);
}

std::vector<Tensor> topological_order(const std::vector<Tensor>& outputs) {
  std::unordered_set<const OperationNode*> seen;
  std::vector<Tensor> order;
  for (const Tensor& t : outputs) visit_post_order(t, seen, order);
  return order;
}

}  // namespace tessel
