// The loop-IR interpreter (see loop_interpreter.h): one visitor evaluates expressions lane by lane
// and executes statements, with variables and buffers bound in scopes.
#include "passes/lower/loop_interpreter.h"

#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "ir/intrinsic.h"
#include "ir/printer.h"
#include "ir/scalar_semantics.h"
#include "ir/visitor.h"

namespace tessel {

namespace {

constexpr int kMaxLanes = 64;

using Lane = scalar::Value;

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

  void visit_node(const IntImm* op) override { result_ = splat(op->type, scalar::of_int(op->value, op->type)); }
  void visit_node(const FloatImm* op) override { result_ = splat(op->type, scalar::of_float(op->value, op->type)); }
  void visit_node(const VarNode* op) override {
    auto it = env_.find(op);
    if (it == env_.end()) user_error("variable '", op->name, "' is used where no statement binds it");
    result_ = it->second;
  }
  void visit_node(const Not* op) override {
    Value v = eval(op->a);
    for (int l = 0; l < v.lanes(); ++l) v.lane[l] = scalar::logical_not(v.lane[l], v.type);
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
    for (int l = 0; l < r.lanes(); ++l) {
      std::optional<Lane> lane = scalar::cast(v.lane[l], v.type, op->type);
      if (!lane)
        user_error("cast of ", v.lane[l].f, " from ", v.type.element().str(), " to ", op->type.element().str(),
                   " is out of range in a lowered function");
      r.lane[l] = *lane;
    }
    result_ = r;
  }
  void visit_node(const Call* op) override {
    const Intrinsic& intrinsic = *op->intrinsic;
    if (!intrinsic.math)
      user_error("intrinsic '", intrinsic.name, "' (", call_effect_name(intrinsic.effect),
                 ") appears inside an expression; calls with effects run as Evaluate statements");
    Value v = eval(op->args.at(0));
    for (int l = 0; l < v.lanes(); ++l) v.lane[l] = scalar::of_float(intrinsic.math(v.lane[l].f, v.type), v.type);
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
    for (int l = 0; l < op->lanes; ++l) {
      Lane offset = *scalar::binary(NodeKind::Mul, base.type, stride.lane[0], scalar::of_int(l, base.type));
      r.lane[l] = *scalar::binary(NodeKind::Add, base.type, base.lane[0], offset);
    }
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
    int64_t min = scalar_int(op->min), extent = scalar_int(op->extent);
    for (int64_t i = min; i < min + extent; ++i)
      with_var(op->var, splat(op->var.type(), scalar::of_int(i, op->var.type())), [&] {
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
    s.size = scalar_int(op->size);
    if (s.size < 0) user_error("buffer '", s.name, "' is allocated with negative size ", s.size);
    s.owned.assign(static_cast<size_t>(s.size) * s.element.bytes(), 0xA5);
    s.data = s.owned.data();
    if (s.element.is_float())
      for (int64_t i = 0; i < s.size; ++i) write(s, i, Lane{0, std::nan("")});
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
    if (scalar_int(op->cond))
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
  void visit_node(const Evaluate* op) override;
  void visit_node(const AttrStmt* op) override { visit(op->body); }  // attributes do not change what runs
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

  int64_t scalar_int(const Expr& e) {
    Value v = eval(e);
    TESSEL_CHECK(v.lanes() == 1 && !v.type.is_float(), "expected a scalar integer: ", to_string(e));
    return v.lane[0].i;
  }

  void binary(NodeKind k, const Expr& a_expr, const Expr& b_expr) {
    Value a = eval(a_expr), b = eval(b_expr);
    TESSEL_CHECK(a.lanes() == b.lanes() && a.type == b.type, "operand types differ: ", a.type.str(), " and ",
                 b.type.str());
    bool logic = is_comparison(k) || k == NodeKind::And || k == NodeKind::Or;
    Value r{logic ? DataType::boolean().with_lanes(a.lanes()) : a.type, {}};
    for (int l = 0; l < a.lanes(); ++l) {
      std::optional<Lane> lane = scalar::binary(k, a.type.element(), a.lane[l], b.lane[l]);
      if (!lane) user_error("integer division by zero in a lowered function");
      r.lane[l] = *lane;
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
      v.i = scalar::wrap(v.i, s.element);
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

// A statement call runs the intrinsics the interpreter knows; any other Evaluate is evaluated for
// its errors (bounds, division by zero) and its value dropped.
void LoopInterpreter::visit_node(const Evaluate* op) {
  const Intrinsic* intrinsic = statement_call(op->value);
  if (!intrinsic) {
    eval(op->value);
    return;
  }
  auto* call = op->value.as<Call>();
  if (is_prefetch(intrinsic->name)) {  // a hint; a prefetch of any address is harmless
    scalar_int(call->args[0].as<Load>()->index);
    return;
  }
  if (intrinsic->name == "fill") {
    auto* address = call->args[0].as<Load>();
    Storage& s = storage_of(address->buffer);
    int64_t first = scalar_int(address->index), count = scalar_int(call->args[2]);
    Value value = eval(call->args[1]);
    for (int64_t k = 0; k < count; ++k) write(s, first + k, value.lane[0]);
    return;
  }
  user_error("the loop interpreter does not implement intrinsic '", intrinsic->name, "' (",
             call_effect_name(intrinsic->effect), ")");
}

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
    v.lane[0] = scalar::of_int(value, var->type);
    interp.bind(var, v);
  }
  return interp.eval(e).lane[0].i;
}

}  // namespace tessel
