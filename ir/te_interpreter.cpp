// The reference tensor-expression interpreter (see ir/te_interpreter.h). Scalars carry their IR
// type; every arithmetic result is normalized to that type (wrapped or rounded) before it is used.
#include "ir/te_interpreter.h"

#include <cmath>
#include <cstring>
#include <sstream>

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

// A scalar value of an IR type: integers and bools in `i`, floats in `f`.
struct Scalar {
  DataType type;
  int64_t i = 0;
  double f = 0;

  double as_double() const {
    if (type.is_float()) return f;
    return type.is_uint() && type.bits == 64 ? static_cast<double>(static_cast<uint64_t>(i)) : static_cast<double>(i);
  }
  bool truthy() const { return type.is_float() ? f != 0 : i != 0; }
};

// Wraps an integer to the type's width (two's complement), rounds a float32 to float.
Scalar normalized(Scalar s) {
  if (s.type.is_float()) {
    if (s.type.bits == 32) s.f = static_cast<float>(s.f);
    return s;
  }
  if (s.type.is_bool()) {
    s.i = s.i != 0;
  } else if (s.type.bits < 64) {
    uint64_t mask = (uint64_t{1} << s.type.bits) - 1;
    uint64_t low = static_cast<uint64_t>(s.i) & mask;
    bool negative = s.type.is_int() && (low >> (s.type.bits - 1)) & 1;
    s.i = static_cast<int64_t>(negative ? low | ~mask : low);
  }
  return s;
}

Scalar make_scalar_int(DataType t, int64_t v) { return normalized(Scalar{t, v, 0}); }
Scalar make_scalar_float(DataType t, double v) { return normalized(Scalar{t, 0, v}); }
Scalar make_bool(bool v) { return Scalar{DataType::boolean(), v, 0}; }

Scalar cast_scalar(const Scalar& s, DataType to) {
  if (to.is_float()) return make_scalar_float(to, s.as_double());
  if (to.is_bool()) return make_bool(s.truthy());
  if (s.type.is_float()) return make_scalar_int(to, static_cast<int64_t>(std::trunc(s.f)));
  return make_scalar_int(to, s.i);
}

int64_t floor_div(int64_t a, int64_t b) {
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // INT64_MIN / -1 wraps
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

double float_binary(NodeKind kind, double a, double b) {
  switch (kind) {
    case NodeKind::Add: return a + b;
    case NodeKind::Sub: return a - b;
    case NodeKind::Mul: return a * b;
    case NodeKind::Div: return a / b;
    case NodeKind::Mod: return a - std::floor(a / b) * b;
    case NodeKind::Min: return std::fmin(a, b);
    case NodeKind::Max: return std::fmax(a, b);
    default: TESSEL_CHECK(false, "not a float arithmetic node");
  }
  return 0;
}

// Unsigned arithmetic so that overflow wraps instead of being undefined.
int64_t int_binary(NodeKind kind, int64_t a, int64_t b, bool is_unsigned) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if ((kind == NodeKind::Div || kind == NodeKind::Mod) && b == 0)
    user_error("integer division by zero while evaluating a tensor expression: guard the divisor");
  switch (kind) {
    case NodeKind::Add: return static_cast<int64_t>(ua + ub);
    case NodeKind::Sub: return static_cast<int64_t>(ua - ub);
    case NodeKind::Mul: return static_cast<int64_t>(ua * ub);
    case NodeKind::Div: return is_unsigned ? static_cast<int64_t>(ua / ub) : floor_div(a, b);
    case NodeKind::Mod: return is_unsigned ? static_cast<int64_t>(ua % ub) : floor_mod(a, b);
    case NodeKind::Min: return (is_unsigned ? ua < ub : a < b) ? a : b;
    case NodeKind::Max: return (is_unsigned ? ua > ub : a > b) ? a : b;
    default: TESSEL_CHECK(false, "not an integer arithmetic node");
  }
  return 0;
}

bool compare(NodeKind kind, const Scalar& a, const Scalar& b) {
  // Three-way comparison in the operands' domain: exact for every integer type, IEEE for floats.
  auto less = [&](const Scalar& x, const Scalar& y) {
    if (x.type.is_float()) return x.f < y.f;
    if (x.type.is_uint()) return static_cast<uint64_t>(x.i) < static_cast<uint64_t>(y.i);
    return x.i < y.i;
  };
  auto equal = [&] { return a.type.is_float() ? a.f == b.f : a.i == b.i; };
  switch (kind) {
    case NodeKind::EQ: return equal();
    case NodeKind::NE: return !equal();
    case NodeKind::LT: return less(a, b);
    case NodeKind::LE: return less(a, b) || equal();
    case NodeKind::GT: return less(b, a);
    case NodeKind::GE: return less(b, a) || equal();
    default: TESSEL_CHECK(false, "not a comparison node");
  }
  return false;
}

Scalar binary(NodeKind kind, const Scalar& a, const Scalar& b, DataType result) {
  switch (kind) {
    case NodeKind::EQ: case NodeKind::NE: case NodeKind::LT: case NodeKind::LE: case NodeKind::GT: case NodeKind::GE:
      return make_bool(compare(kind, a, b));
    case NodeKind::And: return make_bool(a.truthy() && b.truthy());
    case NodeKind::Or: return make_bool(a.truthy() || b.truthy());
    default: break;
  }
  if (result.is_float()) return make_scalar_float(result, float_binary(kind, a.f, b.f));
  return make_scalar_int(result, int_binary(kind, a.i, b.i, result.is_uint()));
}

Scalar intrinsic(const std::string& name, const std::vector<Scalar>& args, DataType result) {
  if (args.size() != 1 || !args[0].type.is_float())
    user_error("intrinsic '", name, "' takes one float argument, got ", args.size(), " argument(s)",
               args.empty() ? "" : " of type " + args[0].type.str());
  double x = args[0].f;
  double y;
  if (name == "exp") y = std::exp(x);
  else if (name == "log") y = std::log(x);
  else if (name == "sqrt") y = std::sqrt(x);
  else if (name == "fabs") y = std::fabs(x);
  else if (name == "tanh") y = std::tanh(x);
  else if (name == "sigmoid") y = 1.0 / (1.0 + std::exp(-x));
  else user_error("unknown intrinsic '", name, "': use one of exp, log, sqrt, fabs, tanh, sigmoid");
  return make_scalar_float(result, y);
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
    if (value.type.bits == 32) { float v = static_cast<float>(value.f); std::memcpy(p, &v, 4); }
    else std::memcpy(p, &value.f, 8);
    return;
  }
  std::memcpy(p, &value.i, value.type.bytes());
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
    result_ = intrinsic(op->name, args, op->type);
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
    index.push_back(eval(op->indices[d]).i);
    flat = flat * tensor.shape()[d] + index.back();
  }
  for (size_t d = 0; d < index.size(); ++d)
    if (index[d] < 0 || index[d] >= tensor.shape()[d])
      user_error("read of ", tensor.name(), "[", index_text(index), "] is outside its shape ", shape_str(tensor.shape()),
                 ": clamp the index (both sides of a select are evaluated) or shrink the iteration domain");
  result_ = load_element(value, flat, op->type);
}

void ExprEvaluator::visit_node(const Reduce* op) {
  Scalar acc = eval(reduce_identity(op->combiner, op->type));
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
  int64_t lo = eval(iv->dom.min).i, extent = eval(iv->dom.extent).i;
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
