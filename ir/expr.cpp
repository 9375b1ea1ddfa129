// Construction of expressions, with operand-type reconciliation.
#include "ir/expr.h"

#include <limits>
#include <vector>

#include "ir/intrinsic.h"
#include "support/error.h"

namespace tessel {

Expr::Expr(int value) : Expr(make_int(value)) {}
Expr::Expr(int64_t value)
    : Expr(make_int(value, value >= std::numeric_limits<int32_t>::min() &&
                                   value <= std::numeric_limits<int32_t>::max()
                               ? DataType::int32()
                               : DataType::int64())) {}
Expr::Expr(double value) : Expr(make_float(value)) {}

Var::Var(std::string name, DataType type) : Expr(std::make_shared<VarNode>(type, std::move(name))) {}
Var::Var(const Expr& e) : Expr(e) { TESSEL_CHECK(!e.defined() || e.as<VarNode>(), "not a Var"); }

IterVar::IterVar(Var var, Range dom, IterKind kind)
    : Handle(std::make_shared<IterVarNode>(IterVarNode{std::move(var), std::move(dom), kind})) {}

Buffer::Buffer(std::string name, DataType dtype, MemoryScope scope)
    : Handle(std::make_shared<BufferNode>(BufferNode{std::move(name), dtype, scope})) {}

Call::Call(DataType t, const Intrinsic& i, std::vector<Expr> a)
    : ExprNode(kKind, t), intrinsic(&i), name(i.name), args(std::move(a)) {}

namespace {

// Small constants of the index types, built once and shared: lowering an unrolled kernel makes
// hundreds of thousands of them (offsets, coefficients), and nodes are immutable, so sharing one is
// the same as building it again.
constexpr int64_t kSharedIntMin = -256, kSharedIntMax = 2048;

const Expr* shared_int(int64_t value, DataType type) {
  bool index_type = type.code == TypeCode::Int && type.lanes == 1 && (type.bits == 32 || type.bits == 64);
  if (!index_type || value < kSharedIntMin || value > kSharedIntMax) return nullptr;
  static const std::vector<Expr> table = [] {
    std::vector<Expr> t;
    for (int bits : {32, 64})
      for (int64_t v = kSharedIntMin; v <= kSharedIntMax; ++v)
        t.push_back(Expr(std::make_shared<IntImm>(DataType{TypeCode::Int, static_cast<uint8_t>(bits), 1}, v)));
    return t;
  }();
  size_t per_type = kSharedIntMax - kSharedIntMin + 1;
  return &table[(type.bits == 64 ? per_type : 0) + static_cast<size_t>(value - kSharedIntMin)];
}

}  // namespace

Expr make_int(int64_t value, DataType type) {
  if (type.is_float()) return make_float(static_cast<double>(value), type);
  if (type.lanes > 1) return broadcast(make_int(value, type.element()), type.lanes);
  if (const Expr* shared = shared_int(value, type)) return *shared;
  return Expr(std::make_shared<IntImm>(type, value));
}

Expr make_float(double value, DataType type) {
  if (!type.is_float()) return make_int(static_cast<int64_t>(value), type);
  if (type.lanes > 1) return broadcast(make_float(value, type.element()), type.lanes);
  return Expr(std::make_shared<FloatImm>(type, value));
}

Expr make_zero(DataType type) { return make_int(0, type); }

const int64_t* as_const_int(const Expr& e) {
  auto* imm = e.as<IntImm>();
  return imm ? &imm->value : nullptr;
}

bool is_const_int(const Expr& e, int64_t value) {
  const int64_t* v = as_const_int(e);
  return v && *v == value;
}

namespace {

bool is_constant(const Expr& e) {
  if (auto* b = e.as<Broadcast>()) return is_constant(b->value);
  return e.as<IntImm>() || e.as<FloatImm>();
}

Expr convert_constant(const Expr& c, DataType to) {
  if (auto* b = c.as<Broadcast>()) return convert_constant(b->value, to);
  if (auto* i = c.as<IntImm>()) return make_int(i->value, to);
  return make_float(c.as<FloatImm>()->value, to);
}

const char* kind_name(NodeKind k) {
  switch (k) {
    case NodeKind::Add: return "+";
    case NodeKind::Sub: return "-";
    case NodeKind::Mul: return "*";
    case NodeKind::Div: return "/";
    case NodeKind::Mod: return "%";
    default: return "a binary operator";
  }
}

// Gives a and b one type, or explains why they cannot have one.
void reconcile(NodeKind kind, Expr& a, Expr& b) {
  DataType ta = a.type(), tb = b.type();
  if (ta == tb) return;
  if (is_constant(b) && !is_constant(a)) { b = convert_constant(b, ta); return; }
  if (is_constant(a) && !is_constant(b)) { a = convert_constant(a, tb); return; }
  if (ta.lanes != tb.lanes) {
    if (ta.lanes == 1) { a = broadcast(a, tb.lanes); reconcile(kind, a, b); return; }
    if (tb.lanes == 1) { b = broadcast(b, ta.lanes); reconcile(kind, a, b); return; }
  }
  if (ta.code == tb.code && ta.lanes == tb.lanes) {
    if (ta.bits < tb.bits) a = cast(tb, a); else b = cast(ta, b);
    return;
  }
  user_error("cannot apply ", kind_name(kind), " to ", ta.str(), " and ", tb.str(),
             ": insert an explicit cast");
}

bool is_comparison(NodeKind k) {
  return k == NodeKind::EQ || k == NodeKind::NE || k == NodeKind::LT || k == NodeKind::LE ||
         k == NodeKind::GT || k == NodeKind::GE;
}

template <NodeKind K>
Expr build(DataType t, Expr a, Expr b) {
  return Expr(std::make_shared<BinaryNode<K>>(t, std::move(a), std::move(b)));
}

}  // namespace

Expr make_binary(NodeKind kind, Expr a, Expr b) {
  TESSEL_CHECK(a.defined() && b.defined(), "operand of a binary expression is undefined");
  check_not_statement_call(a, "an operand of a binary operator");
  check_not_statement_call(b, "an operand of a binary operator");
  reconcile(kind, a, b);
  DataType t = is_comparison(kind) ? DataType::boolean().with_lanes(a.type().lanes) : a.type();
  switch (kind) {
    case NodeKind::Add: return build<NodeKind::Add>(t, a, b);
    case NodeKind::Sub: return build<NodeKind::Sub>(t, a, b);
    case NodeKind::Mul: return build<NodeKind::Mul>(t, a, b);
    case NodeKind::Div: return build<NodeKind::Div>(t, a, b);
    case NodeKind::Mod: return build<NodeKind::Mod>(t, a, b);
    case NodeKind::Min: return build<NodeKind::Min>(t, a, b);
    case NodeKind::Max: return build<NodeKind::Max>(t, a, b);
    case NodeKind::EQ: return build<NodeKind::EQ>(t, a, b);
    case NodeKind::NE: return build<NodeKind::NE>(t, a, b);
    case NodeKind::LT: return build<NodeKind::LT>(t, a, b);
    case NodeKind::LE: return build<NodeKind::LE>(t, a, b);
    case NodeKind::GT: return build<NodeKind::GT>(t, a, b);
    case NodeKind::GE: return build<NodeKind::GE>(t, a, b);
    case NodeKind::And: return build<NodeKind::And>(t, a, b);
    case NodeKind::Or: return build<NodeKind::Or>(t, a, b);
    default: TESSEL_CHECK(false, "not a binary node kind");
  }
  return Expr();
}

Expr cast(DataType type, Expr value) {
  check_not_statement_call(value, "the operand of a cast");
  if (value.type() == type) return value;
  if (type.lanes == 1 && value.type().lanes > 1) type = type.with_lanes(value.type().lanes);
  if (value.type() == type) return value;
  return Expr(std::make_shared<Cast>(type, std::move(value)));
}

Expr select(Expr cond, Expr t, Expr f) {
  for (const Expr* e : {&cond, &t, &f}) check_not_statement_call(*e, "an operand of select");
  reconcile(NodeKind::Add, t, f);
  TESSEL_CHECK(cond.type().is_bool(), "select condition must be bool, got ", cond.type().str());
  DataType type = t.type();
  return Expr(std::make_shared<Select>(type, std::move(cond), std::move(t), std::move(f)));
}

Expr min(Expr a, Expr b) { return make_binary(NodeKind::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return make_binary(NodeKind::Max, std::move(a), std::move(b)); }
Expr eq(Expr a, Expr b) { return make_binary(NodeKind::EQ, std::move(a), std::move(b)); }
Expr ne(Expr a, Expr b) { return make_binary(NodeKind::NE, std::move(a), std::move(b)); }

Expr call(const std::string& name, std::vector<Expr> args) { return make_call(intrinsic(name), std::move(args)); }

Expr ramp(Expr base, Expr stride, int lanes) {
  check_not_statement_call(base, "the base of a ramp");
  check_not_statement_call(stride, "the stride of a ramp");
  reconcile(NodeKind::Add, base, stride);
  return Expr(std::make_shared<Ramp>(std::move(base), std::move(stride), lanes));
}

Expr broadcast(Expr value, int lanes) {
  TESSEL_CHECK(value.type().lanes == 1, "broadcast of a vector");
  check_not_statement_call(value, "the value of a broadcast");
  if (lanes == 1) return value;
  return Expr(std::make_shared<Broadcast>(std::move(value), lanes));
}

Expr load(Buffer buffer, Expr index) {
  check_not_statement_call(index, "an index");
  DataType t = buffer.dtype().with_lanes(index.type().lanes);
  return Expr(std::make_shared<Load>(t, std::move(buffer), std::move(index)));
}

Expr operator+(Expr a, Expr b) { return make_binary(NodeKind::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return make_binary(NodeKind::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return make_binary(NodeKind::Mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) { return make_binary(NodeKind::Div, std::move(a), std::move(b)); }
Expr operator%(Expr a, Expr b) { return make_binary(NodeKind::Mod, std::move(a), std::move(b)); }
Expr operator-(Expr a) { return make_zero(a.type()) - a; }
Expr operator<(Expr a, Expr b) { return make_binary(NodeKind::LT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return make_binary(NodeKind::LE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return make_binary(NodeKind::GT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return make_binary(NodeKind::GE, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return make_binary(NodeKind::And, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return make_binary(NodeKind::Or, std::move(a), std::move(b)); }
Expr operator!(Expr a) {
  check_not_statement_call(a, "the operand of !");
  DataType t = a.type();
  return Expr(std::make_shared<Not>(t, std::move(a)));
}

}  // namespace tessel
