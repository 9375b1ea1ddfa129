// Exact integer helpers shared by the arithmetic analyses: the IR's floor division, modulo and
// wrapping (from ir/scalar_semantics.h, the one definition), and int64 arithmetic that reports
// overflow instead of invoking undefined behaviour.
#pragma once
#include <cstdint>
#include <optional>

#include "ir/scalar_semantics.h"
#include "ir/type.h"

namespace tessel::arith {

using scalar::floor_div;
using scalar::floor_mod;
// The value an integer of `type` holds after storing v (two's-complement wrap to its width).
inline int64_t wrap_to_type(int64_t v, DataType type) { return scalar::wrap(v, type); }

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
