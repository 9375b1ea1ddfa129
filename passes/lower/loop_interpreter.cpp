// The loop-IR interpreter (see loop_interpreter.h): one visitor evaluates expressions lane by lane
// and executes statements, with variables and buffers bound in scopes.
#include "passes/lower/loop_interpreter.h"

#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "ir/printer.h"
#include "ir/visitor.h"
#include "passes/arith/int_arith.h"

namespace tessel {

namespace {

constexpr int kMaxLanes = 64;

union Lane {
  int64_t i;
  double f;
};

struct Value {
  DataType type;
  std::array<Lane, kMaxLanes> lane;
  int lanes() const { return type.lanes; }
};

struct Storage {
  std::string name;
  DataType element;
  uint8_t* data = nullptr;
  int64_t size = 0;
  std::vector<uint8_t> owned;  // for local buffers
};

bool is_comparison(NodeKind k) {
  return k == NodeKind::EQ || k == NodeKind::NE || k == NodeKind::LT || k == NodeKind::LE || k == NodeKind::GT ||
         k == NodeKind::GE;
}

template <typename T>
bool compare(NodeKind k, T a, T b) {
  switch (k) {
    case NodeKind::EQ: return a == b;
    case NodeKind::NE: return a != b;
    case NodeKind::LT: return a < b;
    case NodeKind::LE: return a <= b;
    case NodeKind::GT: return a > b;
    default: return a >= b;
  }
}

uint64_t unsigned_view(int64_t v, DataType t) {
  uint64_t u = static_cast<uint64_t>(v);
  return t.bits >= 64 ? u : u & ((uint64_t{1} << t.bits) - 1);
}

int64_t int_lane(NodeKind k, int64_t a, int64_t b, DataType t) {
  if (is_comparison(k)) return t.is_uint() ? compare(k, unsigned_view(a, t), unsigned_view(b, t)) : compare(k, a, b);
  uint64_t ua = unsigned_view(a, t), ub = unsigned_view(b, t);
  if ((k == NodeKind::Div || k == NodeKind::Mod) && b == 0)
    user_error("integer division by zero in a lowered function");
  switch (k) {
    case NodeKind::Add: return arith::wrap_to_type(static_cast<int64_t>(ua + ub), t);
    case NodeKind::Sub: return arith::wrap_to_type(static_cast<int64_t>(ua - ub), t);
    case NodeKind::Mul: return arith::wrap_to_type(static_cast<int64_t>(ua * ub), t);
    case NodeKind::Div:
      if (t.is_uint()) return static_cast<int64_t>(ua / ub);
      return b == -1 ? arith::wrap_to_type(static_cast<int64_t>(0 - ua), t) : arith::floor_div(a, b);
    case NodeKind::Mod:
      if (t.is_uint()) return static_cast<int64_t>(ua % ub);
      return b == -1 ? 0 : arith::floor_mod(a, b);
    case NodeKind::Min: return t.is_uint() ? (ua < ub ? a : b) : std::min(a, b);
    case NodeKind::Max: return t.is_uint() ? (ua < ub ? b : a) : std::max(a, b);
    case NodeKind::And: return a && b;
    case NodeKind::Or: return a || b;
    default: TESSEL_CHECK(false, "not a binary operator");
  }
  return 0;
}

double round_to(double v, DataType t) { return t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v; }

double float_lane(NodeKind k, double a, double b, DataType t) {
  switch (k) {
    case NodeKind::Add: return round_to(a + b, t);
    case NodeKind::Sub: return round_to(a - b, t);
    case NodeKind::Mul: return round_to(a * b, t);
    case NodeKind::Div: return round_to(a / b, t);
    case NodeKind::Mod: return round_to(a - std::floor(a / b) * b, t);
    case NodeKind::Min: return std::min(a, b);
    case NodeKind::Max: return std::max(a, b);
    default: TESSEL_CHECK(false, "operator not defined on floats");
  }
  return 0;
}

double call_lane(const std::string& name, double x) {
  if (name == "exp") return std::exp(x);
  if (name == "log") return std::log(x);
  if (name == "sqrt") return std::sqrt(x);
  if (name == "fabs") return std::fabs(x);
  if (name == "tanh") return std::tanh(x);
  if (name == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  user_error("unknown intrinsic '", name, "': use one of exp, log, sqrt, fabs, tanh, sigmoid");
}

Lane cast_lane(Lane v, DataType from, DataType to) {
  Lane r;
  if (to.is_float()) {
    double x = from.is_float()  ? v.f
               : from.is_uint() ? static_cast<double>(unsigned_view(v.i, from))
                                : static_cast<double>(v.i);
    r.f = round_to(x, to);
  } else if (from.is_float()) {
    double t = std::trunc(v.f);
    if (!(t > -9.3e18 && t < 9.3e18))
      user_error("cast of ", v.f, " from ", from.str(), " to ", to.str(), " is out of range");
    r.i = arith::wrap_to_type(static_cast<int64_t>(t), to);
  } else {
    r.i = arith::wrap_to_type(v.i, to);
  }
  return r;
}

class LoopInterpreter : public IRVisitor {
 public:
  Value eval(const Expr& e) {
    TESSEL_CHECK(e.defined(), "evaluating an undefined expression");
    visit(e);
    return result_;
  }
  void bind(const VarNode* var, const Value& v) { env_[var] = v; }
  void bind(const BufferNode* buffer, Storage* storage) { buffers_[buffer] = storage; }

 protected:
#define TESSEL_EVAL_BINARY(T) \
  void visit_node(const T* op) override { binary(T::kKind, op->a, op->b); }
  TESSEL_BINARY_NODES(TESSEL_EVAL_BINARY)
#undef TESSEL_EVAL_BINARY

  void visit_node(const IntImm* op) override {
    result_ = splat(op->type, Lane{.i = arith::wrap_to_type(op->value, op->type)});
  }
  void visit_node(const FloatImm* op) override {
    Lane l;
    l.f = round_to(op->value, op->type);
    result_ = splat(op->type, l);
  }
  void visit_node(const VarNode* op) override {
    auto it = env_.find(op);
    if (it == env_.end()) user_error("variable '", op->name, "' is used where no statement binds it");
    result_ = it->second;
  }
  void visit_node(const Not* op) override {
    Value v = eval(op->a);
    for (int l = 0; l < v.lanes(); ++l) v.lane[l].i = !v.lane[l].i;
    result_ = v;
  }
  void visit_node(const Select* op) override {
    Value c = eval(op->cond), t = eval(op->true_value), f = eval(op->false_value);
    for (int l = 0; l < t.lanes(); ++l)
      if (!c.lane[c.lanes() == 1 ? 0 : l].i) t.lane[l] = f.lane[l];
    result_ = t;
  }
  void visit_node(const Cast* op) override {
    Value v = eval(op->value);
    Value r{op->type, {}};
    for (int l = 0; l < r.lanes(); ++l) r.lane[l] = cast_lane(v.lane[l], v.type, op->type);
    result_ = r;
  }
  void visit_node(const Call* op) override {
    Value v = eval(op->args.at(0));
    for (int l = 0; l < v.lanes(); ++l) v.lane[l].f = round_to(call_lane(op->name, v.lane[l].f), v.type);
    result_ = v;
  }
  void visit_node(const Load* op) override {
    Value index = eval(op->index);
    Storage& s = storage_of(op->buffer);
    Value r{op->type, {}};
    for (int l = 0; l < r.lanes(); ++l) r.lane[l] = read(s, index.lane[l].i);
    result_ = r;
  }
  void visit_node(const Ramp* op) override {
    Value base = eval(op->base), stride = eval(op->stride);
    Value r{op->type, {}};
    for (int l = 0; l < op->lanes; ++l)
      r.lane[l].i =
          int_lane(NodeKind::Add, base.lane[0].i, int_lane(NodeKind::Mul, stride.lane[0].i, l, base.type), base.type);
    result_ = r;
  }
  void visit_node(const Broadcast* op) override { result_ = splat(op->type, eval(op->value).lane[0]); }
  void visit_node(const Let* op) override {
    Value v = eval(op->value);
    result_ = with_var(op->var, v, [&] { return eval(op->body); });
  }
  void visit_node(const TensorRead* op) override { unlowered("a tensor read"); }
  void visit_node(const Reduce* op) override { unlowered("a reduction"); }

  void visit_node(const For* op) override {
    int64_t min = scalar(op->min), extent = scalar(op->extent);
    for (int64_t i = min; i < min + extent; ++i)
      with_var(op->var, splat(op->var.type(), Lane{.i = i}), [&] {
        visit(op->body);
        return 0;
      });
  }
  void visit_node(const Store* op) override {
    Value index = eval(op->index), value = eval(op->value);
    Storage& s = storage_of(op->buffer);
    for (int l = 0; l < index.lanes(); ++l) write(s, index.lane[l].i, value.lane[l]);
  }
  void visit_node(const Allocate* op) override {
    Storage s;
    s.name = op->buffer.name();
    s.element = op->buffer.dtype();
    s.size = scalar(op->size);
    if (s.size < 0) user_error("buffer '", s.name, "' is allocated with negative size ", s.size);
    s.owned.assign(static_cast<size_t>(s.size) * s.element.bytes(), 0xA5);
    s.data = s.owned.data();
    if (s.element.is_float())
      for (int64_t i = 0; i < s.size; ++i) write(s, i, Lane{.f = std::nan("")});
    auto it = buffers_.find(op->buffer.get());
    Storage* shadowed = it != buffers_.end() ? it->second : nullptr;
    buffers_[op->buffer.get()] = &s;
    visit(op->body);
    if (shadowed)
      buffers_[op->buffer.get()] = shadowed;
    else
      buffers_.erase(op->buffer.get());
  }
  void visit_node(const IfThenElse* op) override {
    if (scalar(op->cond))
      visit(op->then_case);
    else if (op->else_case.defined())
      visit(op->else_case);
  }
  void visit_node(const LetStmt* op) override {
    Value v = eval(op->value);
    with_var(op->var, v, [&] {
      visit(op->body);
      return 0;
    });
  }
  void visit_node(const Provide* op) override { unlowered("a Provide"); }
  void visit_node(const Realize* op) override { unlowered("a Realize"); }

 private:
  static Value splat(DataType t, Lane v) {
    Value r{t, {}};
    for (int l = 0; l < t.lanes; ++l) r.lane[l] = v;
    return r;
  }

  [[noreturn]] static void unlowered(const char* what) {
    user_error("the loop interpreter got ", what, ": lower and flatten the schedule first");
  }

  int64_t scalar(const Expr& e) {
    Value v = eval(e);
    TESSEL_CHECK(v.lanes() == 1 && !v.type.is_float(), "expected a scalar integer: ", to_string(e));
    return v.lane[0].i;
  }

  void binary(NodeKind k, const Expr& a_expr, const Expr& b_expr) {
    Value a = eval(a_expr), b = eval(b_expr);
    TESSEL_CHECK(a.lanes() == b.lanes() && a.type == b.type, "operand types differ: ", a.type.str(), " and ",
                 b.type.str());
    Value r{is_comparison(k) ? DataType::boolean().with_lanes(a.lanes()) : a.type, {}};
    for (int l = 0; l < a.lanes(); ++l) {
      if (!a.type.is_float())
        r.lane[l].i = int_lane(k, a.lane[l].i, b.lane[l].i, a.type);
      else if (is_comparison(k))
        r.lane[l].i = compare(k, a.lane[l].f, b.lane[l].f);
      else
        r.lane[l].f = float_lane(k, a.lane[l].f, b.lane[l].f, a.type);
    }
    result_ = r;
  }

  template <typename F>
  std::invoke_result_t<F> with_var(const Var& var, const Value& v, F body) {
    const auto* key = static_cast<const VarNode*>(var.get());
    auto it = env_.find(key);
    std::optional<Value> shadowed = it != env_.end() ? std::optional<Value>(it->second) : std::nullopt;
    env_[key] = v;
    auto r = body();
    if (shadowed)
      env_[key] = *shadowed;
    else
      env_.erase(key);
    return r;
  }

  Storage& storage_of(const Buffer& b) {
    auto it = buffers_.find(b.get());
    if (it == buffers_.end())
      user_error("buffer '", b.name(), "' is accessed where it is neither an argument nor allocated");
    return *it->second;
  }

  static uint8_t* element(Storage& s, int64_t index) {
    if (index < 0 || index >= s.size)
      user_error("access to element ", index, " of buffer '", s.name, "' which has ", s.size, " elements");
    return s.data + index * s.element.bytes();
  }

  static Lane read(Storage& s, int64_t index) {
    const uint8_t* p = element(s, index);
    Lane v;
    if (s.element.is_float() && s.element.bits == 32) {
      float x;
      std::memcpy(&x, p, 4);
      v.f = x;
    } else if (s.element.is_float())
      std::memcpy(&v.f, p, 8);
    else {
      v.i = 0;
      std::memcpy(&v.i, p, s.element.bytes());
      v.i = arith::wrap_to_type(v.i, s.element);
    }
    return v;
  }

  static void write(Storage& s, int64_t index, Lane v) {
    uint8_t* p = element(s, index);
    if (s.element.is_float() && s.element.bits == 32) {
      float x = static_cast<float>(v.f);
      std::memcpy(p, &x, 4);
    } else if (s.element.is_float())
      std::memcpy(p, &v.f, 8);
    else
      std::memcpy(p, &v.i, s.element.bytes());
  }

  std::unordered_map<const VarNode*, Value> env_;
  std::unordered_map<const BufferNode*, Storage*> buffers_;
  Value result_;
};

}  // namespace

void run_lowered(const LoweredFunc& f, const std::vector<NDArray*>& args) {
  if (args.size() != f.args.size())
    user_error("function '", f.name, "' takes ", f.args.size(), " arguments but ", args.size(), " arrays were given");
  std::vector<Storage> storages(args.size());
  LoopInterpreter interp;
  for (size_t i = 0; i < args.size(); ++i) {
    const FuncArg& arg = f.args[i];
    args[i]->check_matches(arg.shape, arg.buffer.dtype(), "argument '" + arg.buffer.name() + "' of '" + f.name + "'");
    storages[i] =
        Storage{arg.buffer.name(), arg.buffer.dtype(), static_cast<uint8_t*>(args[i]->data()), args[i]->numel(), {}};
    interp.bind(arg.buffer.get(), &storages[i]);
  }
  if (f.body.defined()) interp.visit(f.body);
}

int64_t evaluate_int(const Expr& e, const std::unordered_map<const VarNode*, int64_t>& vars) {
  TESSEL_CHECK(e.type().lanes == 1 && !e.type().is_float(), "evaluate_int of a ", e.type().str(), " expression");
  LoopInterpreter interp;
  for (const auto& [var, value] : vars) {
    Value v{var->type, {}};
    v.lane[0].i = arith::wrap_to_type(value, var->type);
    interp.bind(var, v);
  }
  return interp.eval(e).lane[0].i;
}

}  // namespace tessel
