// Constant interval analysis: the smallest and largest value an integer expression can take,
// given constant ranges of the variables it uses (loop bounds, let values). The simplifier uses it
// to prove comparisons and to drop divisions and modulos whose operands stay in range.
//
// Bounds are conservative: the true value always lies within [min, max]; kNegInf/kPosInf stand
// for "unbounded". Results that could overflow their type's width are widened to the type's whole
// range, so a bound stays valid even for wrapping arithmetic.
#pragma once
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "ir/expr.h"

namespace tessel::arith {

struct ConstBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t min = kNegInf;
  int64_t max = kPosInf;

  static ConstBound everything() { return {}; }
  static ConstBound point(int64_t v) { return {v, v}; }
  static ConstBound of_type(DataType t);  // every value the (integer) type can hold
  bool is_point() const { return min == max && min != kNegInf && min != kPosInf; }
  bool has_min() const { return min != kNegInf; }
  bool has_max() const { return max != kPosInf; }
  bool within(int64_t lo, int64_t hi) const { return has_min() && has_max() && min >= lo && max <= hi; }
};

// Constant ranges of variables, keyed by VarNode.
using VarBounds = std::unordered_map<const VarNode*, ConstBound>;

// Bounds of an integer or bool expression (for vectors: over all lanes); variables missing from
// `vars` are unbounded.
ConstBound const_bound(const Expr& e, const VarBounds& vars);

// The bound of a loop variable running over [min, min + extent), or everything if unknown.
ConstBound loop_var_bound(const Expr& min, const Expr& extent, const VarBounds& vars);

}  // namespace tessel::arith
