// Arithmetic rules of the simplifier: sums and products by constants become canonical linear
// forms; floor division and modulo by a positive constant pull out the multiples of the divisor
// ((x*8 + y) / 8 = x + y / 8) and vanish when the remainder's range proves them
// (y / 8 = 0 and y % 8 = y for 0 <= y < 8); min/max pick a side when the difference's range
// decides it.
#include <cmath>
#include <numeric>

#include "ir/equality.h"
#include "passes/arith/int_arith.h"
#include "passes/arith/linear_form.h"
#include "passes/arith/simplifier.h"
#include "passes/arith/vector_algebra.h"

namespace tessel::arith {

namespace {

bool is_signed_scalar(const Expr& e) { return e.type().is_int() && e.type().lanes == 1; }

// The constant c > 0 of a divisor, if it is one.
std::optional<int64_t> positive_constant(const Expr& e) {
  const int64_t* c = as_const_int(e);
  return c && *c > 0 ? std::optional<int64_t>(*c) : std::nullopt;
}

// Splits a form into c * quotient + remainder, with every remainder coefficient and the
// remainder's constant not a multiple of c (the constant lands in [0, c)).
void split_multiples(const LinearForm& f, int64_t c, LinearForm& quotient, LinearForm& remainder) {
  quotient.type = remainder.type = f.type;
  for (const LinearTerm& t : f.terms) {
    if (t.coef % c == 0)
      quotient.add_term(t.atom, t.coef / c);
    else
      remainder.add_term(t.atom, t.coef);
  }
  quotient.constant = floor_div(f.constant, c);
  remainder.constant = floor_mod(f.constant, c);
}

// The k with bound inside [k*c, k*c + c), if there is one.
std::optional<int64_t> common_quotient(const ConstBound& b, int64_t c) {
  if (!b.has_min() || !b.has_max()) return std::nullopt;
  int64_t k = floor_div(b.min, c);
  return k == floor_div(b.max, c) ? std::optional<int64_t>(k) : std::nullopt;
}

// x * 1 and x / 1 keep x exactly, and x - 0 as well (also for -0.0 and NaN); other float
// identities (x + 0, x * 0) do not hold for every float, so they are left alone.
Expr float_identity(NodeKind kind, const Expr& a, const Expr& b) {
  auto is = [](const Expr& e, double v) {
    auto* f = e.as<FloatImm>();
    return f && f->value == v;
  };
  if ((kind == NodeKind::Mul || kind == NodeKind::Div) && is(b, 1.0)) return a;
  if (kind == NodeKind::Mul && is(a, 1.0)) return b;
  if (kind == NodeKind::Sub && is(b, 0.0) && !std::signbit(b.as<FloatImm>()->value)) return a;
  return make_binary(kind, a, b);
}

// The operands of e if it is a Min or Max node of `kind`.
std::pair<Expr, Expr> operands_of(const Expr& e, NodeKind kind) {
  if (auto* m = e.as<Min>(); m && kind == NodeKind::Min) return {m->a, m->b};
  if (auto* m = e.as<Max>(); m && kind == NodeKind::Max) return {m->a, m->b};
  return {};
}

// The remainder of split_multiples as aligned + small: `aligned` holds the terms sharing a factor
// g > 1 with c (so it is a multiple of g, and its value mod c at most c - g), `small` the others and
// the constant. When small stays in [0, g) no lane of the sum crosses a multiple of c:
// (aligned + small) / c = aligned / c and (aligned + small) % c = aligned % c + small.
struct AlignedSplit {
  LinearForm aligned, small;
  int64_t g = 0;
};

AlignedSplit split_aligned(const LinearForm& remainder, int64_t c) {
  AlignedSplit s;
  s.aligned.type = s.small.type = remainder.type;
  for (const LinearTerm& t : remainder.terms) {
    bool shares = std::gcd(t.coef, c) > 1;
    (shares ? s.aligned : s.small).add_term(t.atom, t.coef);
    if (shares) s.g = std::gcd(s.g, t.coef);
  }
  s.g = std::gcd(s.g, c);
  s.small.constant = remainder.constant;
  return s;
}

}  // namespace

Expr Simplifier::arith(NodeKind kind, const Expr& a, const Expr& b) {
  if (Expr folded = fold_constants(kind, a, b); folded.defined()) return folded;
  if (a.type().lanes > 1 || b.type().lanes > 1) {
    if (auto* r = a.as<Ramp>(); r && (kind == NodeKind::Div || kind == NodeKind::Mod))
      if (auto* d = b.as<Broadcast>())
        if (auto c = positive_constant(d->value))
          if (Expr lanes = divide_ramp(kind, *r, *c); lanes.defined()) return lanes;
    Expr combined = combine_vectors(kind, a, b);
    return combined.defined() ? mutate(combined) : make_binary(kind, a, b);
  }
  if (a.type().is_float()) return float_identity(kind, a, b);
  if (!a.type().is_index() || a.type() != b.type()) return make_binary(kind, a, b);
  switch (kind) {
    case NodeKind::Add:
    case NodeKind::Sub:
    case NodeKind::Mul: return from_linear(to_linear(kind, a, b), a);
    case NodeKind::Div:
      if (auto c = positive_constant(b); c && is_signed_scalar(a)) return divide(a, *c);
      break;
    case NodeKind::Mod:
      if (auto c = positive_constant(b); c && is_signed_scalar(a)) return modulo(a, *c);
      break;
    case NodeKind::Min:
    case NodeKind::Max:
      if (is_signed_scalar(a)) return min_max(kind, a, b);
      break;
    default: break;
  }
  return make_binary(kind, a, b);
}

Expr Simplifier::divide(const Expr& a, int64_t c) {
  DataType t = a.type();
  if (c == 1) return a;
  if (auto* inner = a.as<Div>()) {  // (x / d) / c = x / (d * c) for positive d and c
    auto d = positive_constant(inner->b);
    auto product = d ? checked_mul(*d, c) : std::nullopt;
    if (product && *product == wrap_to_type(*product, t)) return divide(inner->a, *product);
  }
  LinearForm quotient, remainder;
  split_multiples(to_linear(a), c, quotient, remainder);
  if (auto k = common_quotient(bound(from_linear(remainder)), c)) {
    quotient.constant += *k;
    return from_linear(quotient);
  }
  if (LinearForm aligned, small; split_aligned_part(remainder, c, aligned, small)) {
    quotient.add(to_linear(divide(from_linear(aligned), c)), 1);
    return from_linear(quotient);
  }
  int64_t g = std::gcd(std::gcd(coefficient_gcd(remainder), remainder.constant), c);
  LinearForm reduced = remainder;
  if (g > 1) {
    for (LinearTerm& term : reduced.terms) term.coef /= g;
    reduced.constant /= g;
  }
  quotient.add_term(make_binary(NodeKind::Div, from_linear(reduced), make_int(c / g, t)), 1);
  return from_linear(quotient);
}

Expr Simplifier::modulo(const Expr& a, int64_t c) {
  DataType t = a.type();
  if (c == 1) return make_zero(t);
  if (auto* inner = a.as<Mod>()) {  // (x % d) % c = x % c when c divides d
    auto d = positive_constant(inner->b);
    if (d && *d % c == 0) return modulo(inner->a, c);
  }
  LinearForm quotient, remainder;
  split_multiples(to_linear(a), c, quotient, remainder);
  if (auto k = common_quotient(bound(from_linear(remainder)), c)) {
    remainder.constant -= *k * c;
    return from_linear(remainder);
  }
  if (LinearForm aligned, small; split_aligned_part(remainder, c, aligned, small)) {
    small.add(to_linear(modulo(from_linear(aligned), c)), 1);
    return from_linear(small);
  }
  return make_binary(NodeKind::Mod, from_linear(remainder), make_int(c, t));
}

// Splits `remainder` into its aligned and small parts (split_aligned) when the small part provably
// stays in [0, g), so that dividing by c sees the aligned part alone ((icc*8 + icb) / 16 =
// icc*8 / 16 for icb in [0, 8): a channel index through a 16c-to-8c layout change); false otherwise.
bool Simplifier::split_aligned_part(const LinearForm& remainder, int64_t c, LinearForm& aligned, LinearForm& small) {
  AlignedSplit s = split_aligned(remainder, c);
  if (s.aligned.terms.empty() || s.small.terms.empty() || s.g <= 1) return false;
  ConstBound b = bound(from_linear(s.small));
  if (!b.has_min() || !b.has_max() || b.min < 0 || b.max >= s.g) return false;
  aligned = std::move(s.aligned);
  small = std::move(s.small);
  return true;
}

// ramp(b, s, n) / c and % c when every lane falls in the same block of c: b's remainder mod c is a
// multiple of g = gcd(its coefficients, c) plus k, so it is at most c - g + k, and the lanes stay in
// the block when k + s·(n - 1) < g. Then the quotient is one broadcast and the remainder a ramp:
// a vector load through a layout change of channel blocks (16c to 8c) stays contiguous instead of
// becoming a gather.
Expr Simplifier::divide_ramp(NodeKind kind, const Ramp& r, int64_t c) {
  const int64_t* stride = as_const_int(r.stride);
  if (!stride || *stride < 0 || !is_signed_scalar(r.base)) return Expr();
  LinearForm quotient, remainder;
  split_multiples(to_linear(r.base), c, quotient, remainder);
  int64_t g = std::gcd(coefficient_gcd(remainder), c);
  if (g == 0) g = c;
  if (remainder.constant % g + *stride * (r.lanes - 1) >= g) return Expr();
  if (kind == NodeKind::Div) return broadcast(divide(r.base, c), r.lanes);
  return ramp(modulo(r.base, c), r.stride, r.lanes);
}

Expr Simplifier::min_max(NodeKind kind, const Expr& a, const Expr& b) {
  if (structural_equal(a, b)) return a;
  LinearForm difference = to_linear(a);
  difference.add(to_linear(b), -1);
  ConstBound d = bound(from_linear(difference));
  bool a_smaller = d.has_max() && d.max <= 0, b_smaller = d.has_min() && d.min >= 0;
  if (a_smaller || b_smaller) return (kind == NodeKind::Min) == a_smaller ? a : b;
  // min(min(x, c1), c2) = min(x, min(c1, c2)), and likewise for max.
  auto [inner_a, inner_b] = operands_of(a, kind);
  if (inner_b.defined() && as_const_int(b)) {
    if (Expr c = fold_constants(kind, inner_b, b); c.defined()) return make_binary(kind, inner_a, c);
  }
  return make_binary(kind, a, b);
}

#define TESSEL_SIMPLIFY_ARITH(T) \
  Expr Simplifier::mutate_node(const T* op, const Expr& self) { return arith(T::kKind, mutate(op->a), mutate(op->b)); }
TESSEL_SIMPLIFY_ARITH(Add)
TESSEL_SIMPLIFY_ARITH(Sub)
TESSEL_SIMPLIFY_ARITH(Mul)
TESSEL_SIMPLIFY_ARITH(Div)
TESSEL_SIMPLIFY_ARITH(Mod)
TESSEL_SIMPLIFY_ARITH(Min)
TESSEL_SIMPLIFY_ARITH(Max)
#undef TESSEL_SIMPLIFY_ARITH

}  // namespace tessel::arith
