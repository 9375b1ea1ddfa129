// Constant folding of binary operations with the IR's one scalar semantics (ir/scalar_semantics.h),
// the one both interpreters use: integers wrap to their type's width, integer Div/Mod are floor
// division/modulo (plain for unsigned types), floats round to their type, float min/max follow
// the NaN rule written there. A division by zero has no value and is left unfolded.
#include "ir/scalar_semantics.h"
#include "passes/arith/simplifier.h"

namespace tessel::arith {

namespace {

bool gives_bool(NodeKind k) {
  return k == NodeKind::EQ || k == NodeKind::NE || k == NodeKind::LT || k == NodeKind::LE || k == NodeKind::GT ||
         k == NodeKind::GE || k == NodeKind::And || k == NodeKind::Or;
}

}  // namespace

std::optional<scalar::Value> constant_value(const Expr& e) {
  if (auto* i = e.as<IntImm>()) return scalar::of_int(i->value, i->type);
  if (auto* f = e.as<FloatImm>()) return scalar::of_float(f->value, f->type);
  return std::nullopt;
}

Expr make_constant(scalar::Value v, DataType t) { return t.is_float() ? make_float(v.f, t) : make_int(v.i, t); }

Expr fold_constants(NodeKind kind, const Expr& a, const Expr& b) {
  DataType t = a.type();
  if (t != b.type()) return Expr();
  auto x = constant_value(a), y = constant_value(b);
  if (!x || !y) return Expr();
  std::optional<scalar::Value> r = scalar::binary(kind, t, *x, *y);
  if (!r) return Expr();
  return make_constant(*r, gives_bool(kind) ? DataType::boolean() : t);
}

}  // namespace tessel::arith
