// Linear forms: an integer expression seen as constant + sum(coef * atom), where atoms are the
// maximal subexpressions that are not sums or products by constants (variables, divisions,
// modulos, loads, products of two variables, ...). Collecting equal atoms (structurally) is how
// the simplifier canonicalizes index arithmetic: (i*4 + j)*16 + k - j*16 becomes i*64 + k.
//
// Coefficients are kept wrapped to the expression's type width, so rearranging is exact even for
// arithmetic that overflows (integers modulo 2^bits form a ring).
#pragma once
#include <cstdint>
#include <vector>

#include "ir/expr.h"

namespace tessel::arith {

struct LinearTerm {
  Expr atom;
  int64_t coef;
};

struct LinearForm {
  DataType type;                  // a scalar integer type
  std::vector<LinearTerm> terms;  // first-appearance order, no zero coefficients, distinct atoms
  int64_t constant = 0;

  bool is_constant() const { return terms.empty(); }
  // Adds scale * atom, merging it with a structurally equal atom already present.
  void add_term(const Expr& atom, int64_t scale);
  // Adds scale * other.
  void add(const LinearForm& other, int64_t scale);
};

// e must have a scalar integer type.
LinearForm to_linear(const Expr& e);
// The form of a kind b (Add, Sub or Mul) for a and b of one scalar integer type, without building
// that expression unless it is a product of two non-constants.
LinearForm to_linear(NodeKind kind, const Expr& a, const Expr& b);
// Rebuilds an expression: positive terms first, then subtracted ones, then the constant. Where
// `reuse` (optional) already holds the first steps of that expression, built the same way, its
// nodes are taken instead of new ones: the result is structurally the same either way.
Expr from_linear(const LinearForm& form, const Expr& reuse = Expr());

// The greatest common divisor of all coefficients (not the constant); 0 for a constant form.
int64_t coefficient_gcd(const LinearForm& form);

}  // namespace tessel::arith
