// The reference tensor-expression interpreter (see ir/te_interpreter.h). Scalars carry their IR
// type; their operations are those of ir/scalar_semantics.h, shared with the loop interpreter and
// constant folding.
#include "ir/te_interpreter.h"

#include <cstring>
#include <optional>
#include <sstream>

#include "ir/intrinsic.h"
#include "ir/scalar_semantics.h"
#include "ir/visitor.h"
#include "support/error.h"

namespace tessel {

static_assert(static_cast<uint8_t>(TypeCode::Int) == ElementType::kInt &&
                  static_cast<uint8_t>(TypeCode::UInt) == ElementType::kUInt &&
                  static_cast<uint8_t>(TypeCode::Float) == ElementType::kFloat &&
                  static_cast<uint8_t>(TypeCode::Handle) == ElementType::kHandle,
              "runtime ElementType codes must equal ir TypeCode values");

DataType to_data_type(ElementType t) { return DataType{static_cast<TypeCode>(t.code), t.bits, t.lanes}; }

namespace {

// A scalar value with its IR type; the value follows ir/scalar_semantics.h.
struct Scalar {
  DataType type;
  scalar::Value v;
  bool truthy() const { return scalar::truthy(v, type); }
};

Scalar make_scalar_int(DataType t, int64_t v) { return Scalar{t, scalar::of_int(v, t)}; }
Scalar make_scalar_float(DataType t, double v) { return Scalar{t, scalar::of_float(v, t)}; }
Scalar make_bool(bool v) { return make_scalar_int(DataType::boolean(), v); }

Scalar cast_scalar(const Scalar& s, DataType to) {
  std::optional<scalar::Value> r = scalar::cast(s.v, s.type, to);
  if (!r)
    user_error("cast of ", s.v.f, " from ", s.type.str(), " to ", to.str(),
               " is out of range while evaluating a tensor expression: clamp the value before the cast");
  return Scalar{to, *r};
}

Scalar binary(NodeKind kind, const Scalar& a, const Scalar& b, DataType result) {
  std::optional<scalar::Value> r = scalar::binary(kind, a.type, a.v, b.v);
  if (!r) user_error("integer division by zero while evaluating a tensor expression: guard the divisor");
  return Scalar{result, *r};
}

Scalar intrinsic_value(const Call* op, const std::vector<Scalar>& args) {
  const Intrinsic& i = *op->intrinsic;
  if (!i.math)
    user_error("intrinsic '", i.name, "' (", call_effect_name(i.effect), ") appears in a tensor expression; ",
               "only pure math intrinsics can be evaluated there");
  return make_scalar_float(op->type, i.math(args[0].v.f, op->type));
}

// Reads and writes NDArray elements exactly (int64 values do not pass through double).
Scalar load_element(const NDArray& array, int64_t flat, DataType type) {
  const uint8_t* p = static_cast<const uint8_t*>(array.data()) + flat * type.bytes();
  if (type.is_float()) {
    if (type.bits == 32) { float v; std::memcpy(&v, p, 4); return make_scalar_float(type, v); }
    double v; std::memcpy(&v, p, 8); return make_scalar_float(type, v);
  }
  int64_t raw = 0;
  std::memcpy(&raw, p, type.bytes());  // little-endian: low bytes first; normalized() sign-extends
  return make_scalar_int(type, raw);
}

void store_element(NDArray& array, int64_t flat, const Scalar& value) {
  uint8_t* p = static_cast<uint8_t*>(array.data()) + flat * value.type.bytes();
  if (value.type.is_float()) {
    if (value.type.bits == 32) { float v = static_cast<float>(value.v.f); std::memcpy(p, &v, 4); }
    else std::memcpy(p, &value.v.f, 8);
    return;
  }
  std::memcpy(p, &value.v.i, value.type.bytes());
}

void check_supported(DataType t, const std::string& what) {
  bool ok = t.lanes == 1 && (t.is_float() ? (t.bits == 32 || t.bits == 64)
                                          : (t.is_bool() || ((t.is_int() || t.is_uint()) && t.bits % 8 == 0 && t.bits <= 64)));
  if (!ok) user_error("the reference interpreter cannot evaluate ", what, " of type ", t.str(),
                      ": use a scalar int, uint, float32/64 or bool type");
}

class Interpreter;

// Evaluates one expression in an environment of variable values.
class ExprEvaluator : public IRVisitor {
 public:
  ExprEvaluator(Interpreter& interp, std::unordered_map<const VarNode*, Scalar>& env) : interp_(interp), env_(env) {}

  Scalar eval(const Expr& e) {
    TESSEL_CHECK(e.defined(), "evaluating an undefined expression");
    visit(e);
    return result_;
  }

 protected:
#define TESSEL_EVAL_BINARY(T) \
  void visit_node(const T* op) override { result_ = binary(T::kKind, eval(op->a), eval(op->b), op->type); }
  TESSEL_BINARY_NODES(TESSEL_EVAL_BINARY)
#undef TESSEL_EVAL_BINARY

  void visit_node(const IntImm* op) override { result_ = make_scalar_int(op->type, op->value); }
  void visit_node(const FloatImm* op) override { result_ = make_scalar_float(op->type, op->value); }
  void visit_node(const VarNode* op) override {
    auto it = env_.find(op);
    if (it == env_.end())
      user_error("variable '", op->name, "' is used in a tensor expression outside the scope that defines it");
    result_ = it->second;
  }
  void visit_node(const Not* op) override { result_ = make_bool(!eval(op->a).truthy()); }
  void visit_node(const Select* op) override {
    bool cond = eval(op->cond).truthy();
    Scalar t = eval(op->true_value);
    Scalar f = eval(op->false_value);
    result_ = cond ? t : f;
  }
  void visit_node(const Cast* op) override { result_ = cast_scalar(eval(op->value), op->type); }
  void visit_node(const Call* op) override {
    std::vector<Scalar> args;
    for (const Expr& a : op->args) args.push_back(eval(a));
    result_ = intrinsic_value(op, args);
  }
  void visit_node(const TensorRead* op) override;
  void visit_node(const Reduce* op) override;
  void visit_node(const Let* op) override {
    Scalar value = eval(op->value);
    env_[op->var.operator->()] = value;
    result_ = eval(op->body);
    env_.erase(op->var.operator->());
  }
  void visit_node(const Load*) override { reject("Load"); }
  void visit_node(const Ramp*) override { reject("Ramp"); }
  void visit_node(const Broadcast*) override { reject("Broadcast"); }

 private:
  [[noreturn]] void reject(const char* node) {
    user_error("a ", node, " node appears in a tensor expression; it belongs to the loop IR and "
               "cannot be evaluated by the reference interpreter");
  }
  void reduce_over(const Reduce* op, size_t axis, Scalar& acc);

  Interpreter& interp_;
  std::unordered_map<const VarNode*, Scalar>& env_;
  Scalar result_;
};

class Interpreter {
 public:
  explicit Interpreter(const TensorValues& inputs) : inputs_(inputs) {}

  // The full value of a tensor, computed on first use.
  const NDArray& value_of(const Tensor& t) {
    auto it = memo_.find(t.get());
    if (it != memo_.end()) return it->second;
    NDArray value = t->is_placeholder() ? placeholder_value(t) : compute_value(t);
    return memo_.emplace(t.get(), std::move(value)).first->second;
  }

 private:
  NDArray placeholder_value(const Tensor& t) {
    auto it = inputs_.find(t.get());
    if (it == inputs_.end() || it->second == nullptr)
      user_error("no value given for placeholder '", t.name(), "': pass an NDArray for it in the inputs");
    it->second->check_matches(t.shape(), t.dtype(), "value of placeholder '" + t.name() + "'");
    return *it->second;
  }

  NDArray compute_value(const Tensor& t) {
    check_supported(t.dtype(), "compute '" + t.name() + "'");
    NDArray out = NDArray::empty(t.shape(), t.dtype());
    std::unordered_map<const VarNode*, Scalar> env;
    std::vector<int64_t> index(t.ndim(), 0);
    for (int64_t flat = 0; flat < out.numel(); ++flat) {
      for (int d = 0; d < t.ndim(); ++d) env[t.axis(d).var().operator->()] = make_scalar_int(t.axis(d).var().type(), index[d]);
      Scalar value = ExprEvaluator(*this, env).eval(t->body);
      store_element(out, flat, cast_scalar(value, t.dtype()));
      advance(index, t.shape());
    }
    return out;
  }

  // The next row-major index.
  static void advance(std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
    for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) return;
      index[d] = 0;
    }
  }

  const TensorValues& inputs_;
  std::unordered_map<const OperationNode*, NDArray> memo_;
};

std::string index_text(const std::vector<int64_t>& index) {
  std::ostringstream os;
  for (size_t i = 0; i < index.size(); ++i) os << (i ? ", " : "") << index[i];
  return os.str();
}

void ExprEvaluator::visit_node(const TensorRead* op) {
  Tensor tensor(op->op);
  const NDArray& value = interp_.value_of(tensor);  // first, so a missing input is reported as such
  std::vector<int64_t> index;
  int64_t flat = 0;
  for (size_t d = 0; d < op->indices.size(); ++d) {
    index.push_back(eval(op->indices[d]).v.i);
    flat = flat * tensor.shape()[d] + index.back();
  }
  for (size_t d = 0; d < index.size(); ++d)
    if (index[d] < 0 || index[d] >= tensor.shape()[d])
      user_error("read of ", tensor.name(), "[", index_text(index), "] is outside its shape ", shape_str(tensor.shape()),
                 ": clamp the index (both sides of a select are evaluated) or shrink the iteration domain");
  result_ = load_element(value, flat, op->type);
}

void ExprEvaluator::visit_node(const Reduce* op) {
  Scalar acc = eval(op->init.defined() ? op->init : reduce_identity(op->combiner, op->type));
  reduce_over(op, 0, acc);
  result_ = acc;
}

// Binds axes[axis..] in turn, first axis outermost, and folds the points whose condition holds.
void ExprEvaluator::reduce_over(const Reduce* op, size_t axis, Scalar& acc) {
  if (axis == op->axes.size()) {
    if (!eval(op->condition).truthy()) return;
    Scalar value = eval(op->source);
    NodeKind kind = op->combiner == ReduceOp::Sum ? NodeKind::Add : op->combiner == ReduceOp::Max ? NodeKind::Max : NodeKind::Min;
    acc = binary(kind, acc, value, op->type);
    return;
  }
  const IterVar& iv = op->axes[axis];
  int64_t lo = eval(iv->dom.min).v.i, extent = eval(iv->dom.extent).v.i;
  const VarNode* var = iv.var().operator->();
  for (int64_t v = lo; v < lo + extent; ++v) {
    env_[var] = make_scalar_int(iv.var().type(), v);
    reduce_over(op, axis + 1, acc);
  }
  env_.erase(var);
}

}  // namespace

std::vector<NDArray> evaluate(const std::vector<Tensor>& outputs, const TensorValues& inputs) {
  Interpreter interp(inputs);
  std::vector<NDArray> values;
  for (const Tensor& t : outputs) values.push_back(interp.value_of(t));
  return values;
}

NDArray evaluate(const Tensor& output, const TensorValues& inputs) { return evaluate(std::vector<Tensor>{output}, inputs)[0]; }

NDArray evaluate(const Tensor& output, const std::vector<std::pair<Tensor, NDArray>>& inputs) {
  TensorValues values;
  for (const auto& [tensor, array] : inputs) values[tensor.get()] = &array;
  return evaluate(output, values);
}

}  // namespace tessel
