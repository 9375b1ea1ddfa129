// Exact integer helpers shared by the arithmetic analyses: floor division and modulo (the IR's
// integer Div/Mod semantics), wrapping a value to an IR integer type, and int64 arithmetic that
// reports overflow instead of invoking undefined behaviour.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/type.h"

namespace tessel::arith {

// floor(a / b) for b != 0.
inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// a - b * floor(a / b): the sign of b, so non-negative for b > 0.
inline int64_t floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// The value an integer of `type` holds after storing v (two's-complement wrap to its width).
inline int64_t wrap_to_type(int64_t v, DataType type) {
  if (type.bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << type.bits) - 1;
  uint64_t low = static_cast<uint64_t>(v) & mask;
  if (type.is_int() && (low >> (type.bits - 1)) & 1) low |= ~mask;
  return static_cast<int64_t>(low);
}

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace tessel::arith
