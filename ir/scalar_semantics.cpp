// The scalar semantics of the IR (see scalar_semantics.h). Float operations run in the type's own
// precision (float for float32), so results are rounded exactly as compiled code rounds them.
#include "ir/scalar_semantics.h"

#include <cmath>

namespace tessel::scalar {

namespace {

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

template <typename T>
T float_arith(NodeKind k, T a, T b) {
  switch (k) {
    case NodeKind::Add: return a + b;
    case NodeKind::Sub: return a - b;
    case NodeKind::Mul: return a * b;
    case NodeKind::Div: return a / b;
    case NodeKind::Mod: return std::fma(-std::floor(a / b), b, a);
    case NodeKind::Min: return a < b ? a : b;
    default: return a > b ? a : b;  // Max
  }
}

// The unsigned number the low bits of a value of unsigned type t hold.
uint64_t unsigned_bits(int64_t v, DataType t) {
  uint64_t u = static_cast<uint64_t>(v);
  return t.bits >= 64 ? u : u & ((uint64_t{1} << t.bits) - 1);
}

std::optional<int64_t> int_arith(NodeKind k, int64_t a, int64_t b, DataType t) {
  bool is_unsigned = t.is_uint();
  uint64_t ua = unsigned_bits(a, t), ub = unsigned_bits(b, t);
  switch (k) {
    case NodeKind::Add: return static_cast<int64_t>(ua + ub);
    case NodeKind::Sub: return static_cast<int64_t>(ua - ub);
    case NodeKind::Mul: return static_cast<int64_t>(ua * ub);
    case NodeKind::Div:
      if (b == 0) return std::nullopt;
      return is_unsigned ? static_cast<int64_t>(ua / ub) : floor_div(a, b);
    case NodeKind::Mod:
      if (b == 0) return std::nullopt;
      return is_unsigned ? static_cast<int64_t>(ua % ub) : floor_mod(a, b);
    case NodeKind::Min: return (is_unsigned ? ua < ub : a < b) ? a : b;
    default: return (is_unsigned ? ua > ub : a > b) ? a : b;  // Max
  }
}

// Whether the truncated float t fits an integer type of `bits` bits.
bool fits_integer(double t, DataType to) {
  if (std::isnan(t)) return false;
  if (to.is_uint()) return t >= 0 && t < std::ldexp(1.0, to.bits);
  return t >= -std::ldexp(1.0, to.bits - 1) && t < std::ldexp(1.0, to.bits - 1);
}

}  // namespace

int64_t wrap(int64_t v, DataType t) {
  if (t.is_bool()) return v != 0;
  if (t.bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << t.bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  if (t.is_int() && (low >> (t.bits - 1)) & 1) low |= ~mask;
  return static_cast<int64_t>(low);
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

Value of_int(int64_t v, DataType t) { return Value{wrap(v, t), 0}; }

Value of_float(double v, DataType t) { return Value{0, t.bits == 32 ? static_cast<double>(static_cast<float>(v)) : v}; }

bool truthy(Value v, DataType t) { return t.is_float() ? v.f != 0 : v.i != 0; }

std::optional<Value> binary(NodeKind kind, DataType t, Value a, Value b) {
  if (kind == NodeKind::And) return Value{truthy(a, t) && truthy(b, t), 0};
  if (kind == NodeKind::Or) return Value{truthy(a, t) || truthy(b, t), 0};
  if (is_comparison(kind)) {
    bool r = t.is_float() ? compare(kind, a.f, b.f)
             : t.is_uint() ? compare(kind, unsigned_bits(a.i, t), unsigned_bits(b.i, t))
                           : compare(kind, a.i, b.i);
    return Value{r, 0};
  }
  if (t.is_float()) {
    double r = t.bits == 32 ? float_arith<float>(kind, static_cast<float>(a.f), static_cast<float>(b.f))
                            : float_arith<double>(kind, a.f, b.f);
    return of_float(r, t);
  }
  std::optional<int64_t> r = int_arith(kind, a.i, b.i, t);
  if (!r) return std::nullopt;
  return of_int(*r, t);
}

Value logical_not(Value a, DataType t) { return Value{!truthy(a, t), 0}; }

std::optional<Value> cast(Value v, DataType from, DataType to) {
  from = from.element();
  to = to.element();
  if (to.is_bool()) return Value{truthy(v, from), 0};
  if (to.is_float()) {
    if (from.is_float()) return of_float(v.f, to);
    bool single = to.bits == 32;  // converted directly, so each conversion rounds once
    if (from.is_uint()) {
      uint64_t u = unsigned_bits(v.i, from);
      return Value{0, single ? static_cast<double>(static_cast<float>(u)) : static_cast<double>(u)};
    }
    return Value{0, single ? static_cast<double>(static_cast<float>(v.i)) : static_cast<double>(v.i)};
  }
  if (!from.is_float()) return of_int(v.i, to);
  double t = std::trunc(v.f);
  if (!fits_integer(t, to)) return std::nullopt;
  if (to.is_uint() && to.bits == 64) return Value{static_cast<int64_t>(static_cast<uint64_t>(t)), 0};
  return of_int(static_cast<int64_t>(t), to);
}

}  // namespace tessel::scalar
