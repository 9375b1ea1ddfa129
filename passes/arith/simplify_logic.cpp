// Comparison and logic rules of the simplifier. A signed integer comparison is decided from the
// range of a - b when it can be (that is how guards such as `xo*32 + xi < 100` disappear inside
// loops that prove them), and otherwise rewritten canonically as `positive terms OP the rest`.
// Also: boolean connectives with constants, negated comparisons, selects with a known condition,
// constant casts, and lets of trivial values.
#include <cmath>

#include "ir/equality.h"
#include "ir/mutator.h"
#include "passes/arith/int_arith.h"
#include "passes/arith/linear_form.h"
#include "passes/arith/simplifier.h"
#include "passes/arith/vector_algebra.h"

namespace tessel::arith {

namespace {

Expr bool_constant(bool v, int lanes) { return make_int(v, DataType::boolean().with_lanes(lanes)); }

// The value of a constant boolean (scalar or broadcast), if it is one.
std::optional<bool> const_bool(const Expr& e) {
  if (auto* b = e.as<Broadcast>()) return const_bool(b->value);
  if (auto* i = e.as<IntImm>(); i && i->type.is_bool()) return i->value != 0;
  return std::nullopt;
}

// Decides `d kind 0` from the range of d.
std::optional<bool> decide_against_zero(NodeKind kind, const ConstBound& d) {
  bool below = d.has_max() && d.max < 0, above = d.has_min() && d.min > 0;
  bool nonpositive = d.has_max() && d.max <= 0, nonnegative = d.has_min() && d.min >= 0;
  switch (kind) {
    case NodeKind::LT: return below ? std::optional(true) : nonnegative ? std::optional(false) : std::nullopt;
    case NodeKind::LE: return nonpositive ? std::optional(true) : above ? std::optional(false) : std::nullopt;
    case NodeKind::EQ:
      return d.is_point() && d.min == 0 ? std::optional(true) : (below || above) ? std::optional(false) : std::nullopt;
    case NodeKind::NE:
      return d.is_point() && d.min == 0 ? std::optional(false) : (below || above) ? std::optional(true) : std::nullopt;
    default: return std::nullopt;
  }
}

// Decides `a kind b` from separate ranges of a and b (valid for any integer type and for vectors,
// where it must hold in every lane).
std::optional<bool> decide_by_ranges(NodeKind kind, const ConstBound& a, const ConstBound& b) {
  auto lt = [](const ConstBound& x, const ConstBound& y) { return x.has_max() && y.has_min() && x.max < y.min; };
  auto le = [](const ConstBound& x, const ConstBound& y) { return x.has_max() && y.has_min() && x.max <= y.min; };
  switch (kind) {
    case NodeKind::LT: return lt(a, b) ? std::optional(true) : le(b, a) ? std::optional(false) : std::nullopt;
    case NodeKind::LE: return le(a, b) ? std::optional(true) : lt(b, a) ? std::optional(false) : std::nullopt;
    case NodeKind::EQ: return lt(a, b) || lt(b, a) ? std::optional(false) : std::nullopt;
    case NodeKind::NE: return lt(a, b) || lt(b, a) ? std::optional(true) : std::nullopt;
    default: return std::nullopt;
  }
}

NodeKind swapped(NodeKind kind) { return kind == NodeKind::GT ? NodeKind::LT : NodeKind::LE; }

}  // namespace

Expr Simplifier::compare(NodeKind kind, const Expr& a, const Expr& b) {
  if (Expr folded = fold_constants(kind, a, b); folded.defined()) return folded;
  if (kind == NodeKind::GT || kind == NodeKind::GE) return compare(swapped(kind), b, a);
  int lanes = std::max(a.type().lanes, b.type().lanes);
  if (!a.type().is_index() || a.type() != b.type()) return make_binary(kind, a, b);
  bool full_width_unsigned = a.type().is_uint() && a.type().bits >= 64;  // its bounds are int64 views
  if (auto decided = full_width_unsigned ? std::nullopt : decide_by_ranges(kind, bound(a), bound(b)))
    return bool_constant(*decided, lanes);
  if (lanes > 1) {
    Expr combined = combine_vectors(kind, a, b);
    return combined.defined() && combined.as<Broadcast>() ? mutate(combined) : make_binary(kind, a, b);
  }
  if (!a.type().is_int()) return make_binary(kind, a, b);
  LinearForm d = to_linear(a);
  d.add(to_linear(b), -1);
  if (auto decided = decide_against_zero(kind, bound(from_linear(d)))) return bool_constant(*decided, 1);
  LinearForm lhs{d.type, {}, 0}, rhs{d.type, {}, -d.constant};
  for (const LinearTerm& t : d.terms) {
    if (t.coef > 0)
      lhs.add_term(t.atom, t.coef);
    else
      rhs.add_term(t.atom, -t.coef);
  }
  return make_binary(kind, from_linear(lhs), from_linear(rhs));
}

Expr Simplifier::logic(NodeKind kind, const Expr& a, const Expr& b) {
  if (Expr folded = fold_constants(kind, a, b); folded.defined()) return folded;
  bool is_and = kind == NodeKind::And;
  int lanes = std::max(a.type().lanes, b.type().lanes);
  for (const auto& [known, other] : {std::pair{a, b}, std::pair{b, a}}) {
    auto v = const_bool(known);
    if (!v || other.type().lanes != lanes) continue;
    if (*v == is_and) return other;   // true && x, false || x
    return bool_constant(*v, lanes);  // false && x, true || x
  }
  if (structural_equal(a, b)) return a;
  return make_binary(kind, a, b);
}

#define TESSEL_SIMPLIFY_COMPARE(T)                              \
  Expr Simplifier::mutate_node(const T* op, const Expr& self) { \
    return compare(T::kKind, mutate(op->a), mutate(op->b));     \
  }
TESSEL_SIMPLIFY_COMPARE(EQ)
TESSEL_SIMPLIFY_COMPARE(NE)
TESSEL_SIMPLIFY_COMPARE(LT)
TESSEL_SIMPLIFY_COMPARE(LE)
TESSEL_SIMPLIFY_COMPARE(GT)
TESSEL_SIMPLIFY_COMPARE(GE)
#undef TESSEL_SIMPLIFY_COMPARE

Expr Simplifier::mutate_node(const And* op, const Expr& self) {
  return logic(NodeKind::And, mutate(op->a), mutate(op->b));
}
Expr Simplifier::mutate_node(const Or* op, const Expr& self) {
  return logic(NodeKind::Or, mutate(op->a), mutate(op->b));
}

Expr Simplifier::mutate_node(const Not* op, const Expr& self) {
  Expr a = mutate(op->a);
  if (auto v = const_bool(a)) return bool_constant(!*v, a.type().lanes);
  if (auto* inner = a.as<Not>()) return inner->a;
  if (auto* c = a.as<LT>(); c && c->a.type().is_index()) return compare(NodeKind::LE, c->b, c->a);
  if (auto* c = a.as<LE>(); c && c->a.type().is_index()) return compare(NodeKind::LT, c->b, c->a);
  if (auto* c = a.as<EQ>(); c && c->a.type().is_index()) return compare(NodeKind::NE, c->a, c->b);
  if (auto* c = a.as<NE>(); c && c->a.type().is_index()) return compare(NodeKind::EQ, c->a, c->b);
  return a.same_as(op->a) ? self : !a;
}

Expr Simplifier::mutate_node(const Select* op, const Expr& self) {
  Expr cond = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
  if (auto v = const_bool(cond)) return *v ? t : f;
  if (structural_equal(t, f)) return t;
  return select(cond, t, f);
}

Expr Simplifier::mutate_node(const Cast* op, const Expr& self) {
  Expr v = mutate(op->value);
  DataType to = op->type;
  bool to_number = to.lanes == 1 && (to.is_float() || to.is_index());
  if (auto value = to_number ? constant_value(v) : std::nullopt)
    if (auto converted = scalar::cast(*value, v.type(), to)) return make_constant(*converted, to);
  return v.same_as(op->value) ? self : cast(to, v);
}

Expr Simplifier::mutate_node(const Let* op, const Expr& self) {
  Expr value = mutate(op->value);
  if (value.as<IntImm>() || value.as<FloatImm>() || value.as<VarNode>())
    return mutate(substitute(op->body, {{static_cast<const VarNode*>(op->var.get()), value}}));
  Expr body = with_bound(op->var, bound(value), op->body);
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return Expr(std::make_shared<Let>(op->var, value, body));
}

}  // namespace tessel::arith
