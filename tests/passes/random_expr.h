// Random integer and boolean expressions for differential tests of the arithmetic passes: sums,
// products, floor divisions and modulos by nonzero constants, min/max, selects and comparisons
// over a few variables.
#pragma once
#include <random>
#include <vector>

#include "ir/expr.h"

namespace tessel::test {

class ExprGenerator {
 public:
  ExprGenerator(std::vector<Var> vars, uint32_t seed) : vars_(std::move(vars)), rng_(seed) {}

  Expr integer(int depth) {
    if (depth == 0 || pick(5) == 0) return leaf();
    switch (pick(10)) {
      case 0:
      case 1: return integer(depth - 1) + integer(depth - 1);
      case 2: return integer(depth - 1) - integer(depth - 1);
      case 3: return integer(depth - 1) * constant(-4, 9);
      case 4: return integer(depth - 1) * integer(depth - 2 < 0 ? 0 : depth - 2);
      case 5: return integer(depth - 1) / nonzero_divisor();
      case 6: return integer(depth - 1) % nonzero_divisor();
      case 7: return min(integer(depth - 1), integer(depth - 1));
      case 8: return max(integer(depth - 1), integer(depth - 1));
      default: return select(boolean(depth - 1), integer(depth - 1), integer(depth - 1));
    }
  }

  Expr boolean(int depth) {
    switch (depth <= 0 ? pick(6) : pick(9)) {
      case 0: return integer(depth) < integer(depth);
      case 1: return integer(depth) <= integer(depth);
      case 2: return integer(depth) > integer(depth);
      case 3: return integer(depth) >= integer(depth);
      case 4: return eq(integer(depth), integer(depth));
      case 5: return ne(integer(depth), integer(depth));
      case 6: return boolean(depth - 1) && boolean(depth - 1);
      case 7: return boolean(depth - 1) || boolean(depth - 1);
      default: return !boolean(depth - 1);
    }
  }

  int64_t pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  int64_t in_range(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

 private:
  Expr leaf() { return pick(3) == 0 ? constant(-20, 40) : Expr(vars_[pick(static_cast<int>(vars_.size()))]); }
  Expr constant(int64_t lo, int64_t hi) { return make_int(in_range(lo, hi)); }
  Expr nonzero_divisor() {
    int64_t d = in_range(-9, 16);
    return make_int(d == 0 ? 8 : d);
  }

  std::vector<Var> vars_;
  std::mt19937 rng_;
};

}  // namespace tessel::test
