// Constant folding of binary operations, with the semantics of the reference interpreter:
// integers wrap to their type's width, integer Div/Mod are floor division/modulo (plain division
// for unsigned types), float32 results are rounded to float.
#include <cmath>

#include "passes/arith/int_arith.h"
#include "passes/arith/simplifier.h"

namespace tessel::arith {

namespace {

bool is_comparison(NodeKind k) {
  return k == NodeKind::EQ || k == NodeKind::NE || k == NodeKind::LT || k == NodeKind::LE || k == NodeKind::GT ||
         k == NodeKind::GE;
}

template <typename T>
std::optional<bool> compare_values(NodeKind kind, T x, T y) {
  switch (kind) {
    case NodeKind::EQ: return x == y;
    case NodeKind::NE: return x != y;
    case NodeKind::LT: return x < y;
    case NodeKind::LE: return x <= y;
    case NodeKind::GT: return x > y;
    case NodeKind::GE: return x >= y;
    default: return std::nullopt;
  }
}

std::optional<int64_t> fold_signed(NodeKind kind, int64_t x, int64_t y) {
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (kind) {
    case NodeKind::Add: return static_cast<int64_t>(ux + uy);
    case NodeKind::Sub: return static_cast<int64_t>(ux - uy);
    case NodeKind::Mul: return static_cast<int64_t>(ux * uy);
    case NodeKind::Div:
      if (y == 0) return std::nullopt;
      return y == -1 ? static_cast<int64_t>(0 - ux) : floor_div(x, y);
    case NodeKind::Mod:
      if (y == 0) return std::nullopt;
      return y == -1 ? 0 : floor_mod(x, y);
    case NodeKind::Min: return std::min(x, y);
    case NodeKind::Max: return std::max(x, y);
    case NodeKind::And: return x && y;
    case NodeKind::Or: return x || y;
    default: return std::nullopt;
  }
}

std::optional<int64_t> fold_unsigned(NodeKind kind, uint64_t x, uint64_t y) {
  switch (kind) {
    case NodeKind::Div: return y == 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(x / y));
    case NodeKind::Mod: return y == 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(x % y));
    case NodeKind::Min: return static_cast<int64_t>(std::min(x, y));
    case NodeKind::Max: return static_cast<int64_t>(std::max(x, y));
    default: return fold_signed(kind, static_cast<int64_t>(x), static_cast<int64_t>(y));
  }
}

// Unsigned values are compared and divided as the unsigned numbers their low bits hold.
uint64_t as_unsigned(int64_t v, DataType t) {
  uint64_t u = static_cast<uint64_t>(v);
  return t.bits >= 64 ? u : u & ((uint64_t{1} << t.bits) - 1);
}

Expr fold_ints(NodeKind kind, int64_t x, int64_t y, DataType t) {
  bool is_unsigned = t.is_uint();
  if (is_comparison(kind)) {
    auto r = is_unsigned ? compare_values(kind, as_unsigned(x, t), as_unsigned(y, t)) : compare_values(kind, x, y);
    return r ? make_int(*r, DataType::boolean()) : Expr();
  }
  auto r = is_unsigned ? fold_unsigned(kind, as_unsigned(x, t), as_unsigned(y, t)) : fold_signed(kind, x, y);
  return r ? make_int(wrap_to_type(*r, t), t) : Expr();
}

double round_to(double v, DataType t) { return t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v; }

Expr fold_floats(NodeKind kind, double x, double y, DataType t) {
  if (auto r = compare_values(kind, x, y)) return make_int(*r, DataType::boolean());
  switch (kind) {
    case NodeKind::Add: return make_float(round_to(x + y, t), t);
    case NodeKind::Sub: return make_float(round_to(x - y, t), t);
    case NodeKind::Mul: return make_float(round_to(x * y, t), t);
    case NodeKind::Div: return make_float(round_to(x / y, t), t);
    case NodeKind::Min:
    case NodeKind::Max:
      if (std::isnan(x) || std::isnan(y)) return Expr();  // back ends differ on NaN operands
      return make_float(kind == NodeKind::Min ? std::min(x, y) : std::max(x, y), t);
    default: return Expr();
  }
}

}  // namespace

Expr fold_constants(NodeKind kind, const Expr& a, const Expr& b) {
  if (a.type() != b.type()) return Expr();
  auto *ia = a.as<IntImm>(), *ib = b.as<IntImm>();
  if (ia && ib) return fold_ints(kind, ia->value, ib->value, a.type());
  auto *fa = a.as<FloatImm>(), *fb = b.as<FloatImm>();
  if (fa && fb) return fold_floats(kind, fa->value, fb->value, a.type());
  return Expr();
}

}  // namespace tessel::arith
