// The simplifier's rewriter, shared by its source files: simplify_arith.cpp (arithmetic),
// simplify_logic.cpp (comparisons, logic, select, cast, let) and simplify.cpp (statements and
// entry points). Children are simplified first, then the node's own rules apply.
#pragma once
#include <optional>

#include "ir/mutator.h"
#include "ir/scalar_semantics.h"
#include "passes/arith/const_bound.h"

namespace tessel::arith {

struct LinearForm;

class Simplifier : public IRMutator {
 public:
  explicit Simplifier(VarBounds vars) : bounds_(std::move(vars)) {}

  using IRMutator::mutate;
  ConstBound bound(const Expr& e) const { return const_bound(e, bounds_); }

 protected:
  // simplify_arith.cpp
  Expr mutate_node(const Add* op, const Expr& self) override;
  Expr mutate_node(const Sub* op, const Expr& self) override;
  Expr mutate_node(const Mul* op, const Expr& self) override;
  Expr mutate_node(const Div* op, const Expr& self) override;
  Expr mutate_node(const Mod* op, const Expr& self) override;
  Expr mutate_node(const Min* op, const Expr& self) override;
  Expr mutate_node(const Max* op, const Expr& self) override;

  // simplify_logic.cpp
  Expr mutate_node(const EQ* op, const Expr& self) override;
  Expr mutate_node(const NE* op, const Expr& self) override;
  Expr mutate_node(const LT* op, const Expr& self) override;
  Expr mutate_node(const LE* op, const Expr& self) override;
  Expr mutate_node(const GT* op, const Expr& self) override;
  Expr mutate_node(const GE* op, const Expr& self) override;
  Expr mutate_node(const And* op, const Expr& self) override;
  Expr mutate_node(const Or* op, const Expr& self) override;
  Expr mutate_node(const Not* op, const Expr& self) override;
  Expr mutate_node(const Select* op, const Expr& self) override;
  Expr mutate_node(const Cast* op, const Expr& self) override;
  Expr mutate_node(const Let* op, const Expr& self) override;

  // simplify.cpp
  Stmt mutate_node(const For* op, const Stmt& self) override;
  Stmt mutate_node(const IfThenElse* op, const Stmt& self) override;
  Stmt mutate_node(const LetStmt* op, const Stmt& self) override;
  Stmt mutate_node(const Allocate* op, const Stmt& self) override;
  Stmt mutate_node(const Realize* op, const Stmt& self) override;
  Stmt mutate_node(const Evaluate* op, const Stmt& self) override;
  Stmt mutate_node(const AttrStmt* op, const Stmt& self) override;

 private:
  // a `kind` b for simplified operands a and b.
  Expr arith(NodeKind kind, const Expr& a, const Expr& b);
  Expr linear_sum(NodeKind kind, const Expr& a, const Expr& b);
  Expr divide(const Expr& a, int64_t c);
  Expr modulo(const Expr& a, int64_t c);
  Expr divide_ramp(NodeKind kind, const Ramp& r, int64_t c);
  bool split_aligned_part(const LinearForm& remainder, int64_t c, LinearForm& aligned, LinearForm& small);
  Expr min_max(NodeKind kind, const Expr& a, const Expr& b);
  Expr compare(NodeKind kind, const Expr& a, const Expr& b);
  Expr logic(NodeKind kind, const Expr& a, const Expr& b);

  // Simplifies `body` with var known to lie in `range`; restores the previous knowledge after.
  template <typename T>
  T with_bound(const Var& var, ConstBound range, const T& body);

  VarBounds bounds_;
};

// Folds a op b for two constants (ir/scalar_semantics.h); undefined when they are not both
// constants or the operation has no value (division by zero).
Expr fold_constants(NodeKind kind, const Expr& a, const Expr& b);
// The value of a scalar IntImm or FloatImm, and the constant of a value.
std::optional<scalar::Value> constant_value(const Expr& e);
Expr make_constant(scalar::Value v, DataType t);

template <typename T>
T Simplifier::with_bound(const Var& var, ConstBound range, const T& body) {
  const auto* key = static_cast<const VarNode*>(var.get());
  auto it = bounds_.find(key);
  std::optional<ConstBound> shadowed = it != bounds_.end() ? std::optional<ConstBound>(it->second) : std::nullopt;
  bounds_[key] = range;
  T result = mutate(body);
  if (shadowed)
    bounds_[key] = *shadowed;
  else
    bounds_.erase(key);
  return result;
}

}  // namespace tessel::arith
