// Loop partitioning (see partition_loops.h). For a guard d < 0 with d = c*v + rest (c > 0), the
// guard holds for every inner iteration whenever c*v + max(rest) < 0, i.e. for all
// v < floor((-max(rest) - 1) / c) + 1: the loop is cut at the smallest such point over its guards.
#include "passes/lower/partition_loops.h"

#include <optional>

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/arith/const_bound.h"
#include "passes/arith/int_arith.h"
#include "passes/arith/linear_form.h"

namespace tessel {

namespace {

using arith::ConstBound;
using arith::VarBounds;

// Every guard in a loop body, with the ranges of the loops nested between the body and the guard.
class GuardCollector : public IRVisitor {
 public:
  std::vector<std::pair<Expr, VarBounds>> guards;

 protected:
  void visit_node(const For* op) override {
    const int64_t *min = as_const_int(op->min), *extent = as_const_int(op->extent);
    if (!min || !extent) return;  // guards below it cannot be bounded; leave them alone
    inner_[static_cast<const VarNode*>(op->var.get())] = {*min, *min + *extent - 1};
    IRVisitor::visit_node(op);
    inner_.erase(static_cast<const VarNode*>(op->var.get()));
  }
  void visit_node(const IfThenElse* op) override {
    guards.emplace_back(op->cond, inner_);
    IRVisitor::visit_node(op);
  }

 private:
  VarBounds inner_;
};

// The first value of `var` for which `cond` might fail for some inner iteration, if cond is a
// guard this pass understands; every smaller value satisfies it.
std::optional<int64_t> first_unproven(const Expr& cond, const VarNode* var, const VarBounds& inner) {
  if (auto* both = cond.as<And>()) {
    auto a = first_unproven(both->a, var, inner), b = first_unproven(both->b, var, inner);
    if (a && b) return std::min(*a, *b);
    return std::nullopt;
  }
  auto* lt = cond.as<LT>();
  auto* le = cond.as<LE>();
  const Expr& lhs = lt ? lt->a : le ? le->a : cond;
  const Expr& rhs = lt ? lt->b : le ? le->b : cond;
  if ((!lt && !le) || !lhs.type().is_int() || lhs.type().lanes != 1) return std::nullopt;
  arith::LinearForm d = arith::to_linear(lhs);
  d.add(arith::to_linear(rhs), -1);
  if (le) d.constant -= 1;  // d <= 0  <=>  d - 1 < 0
  int64_t coef = 0;
  arith::LinearForm rest{d.type, {}, d.constant};
  for (const arith::LinearTerm& t : d.terms) {
    if (t.atom.get() == var)
      coef = t.coef;
    else
      rest.add_term(t.atom, t.coef);
  }
  if (coef <= 0) return std::nullopt;
  ConstBound r = arith::const_bound(arith::from_linear(rest), inner);
  if (!r.has_max() || r.max > (int64_t{1} << 40) || r.max < -(int64_t{1} << 40)) return std::nullopt;
  return arith::floor_div(-r.max - 1, coef) + 1;
}

class Partitioner : public IRMutator {
 protected:
  Stmt mutate_node(const For* op, const Stmt& self) override {
    const int64_t *min = as_const_int(op->min), *extent = as_const_int(op->extent);
    bool partitionable = min && extent && (op->kind == ForKind::Serial || op->kind == ForKind::Parallel);
    std::optional<int64_t> cut = partitionable ? cut_point(*op, *min, *min + *extent) : std::nullopt;
    if (!cut) return IRMutator::mutate_node(op, self);
    Stmt body = mutate(op->body);
    Stmt main = make_for(op->var, op->min, make_int(*cut - *min), op->kind, body);
    Stmt tail = make_for(op->var, make_int(*cut), make_int(*min + *extent - *cut), op->kind, body);
    return make_seq({main, tail});
  }

 private:
  // The smallest useful cut in (begin, end): a guard failing from `begin` on gains nothing.
  static std::optional<int64_t> cut_point(const For& loop, int64_t begin, int64_t end) {
    GuardCollector collector;
    collector.visit(loop.body);
    std::optional<int64_t> cut;
    const auto* var = static_cast<const VarNode*>(loop.var.get());
    for (const auto& [cond, inner] : collector.guards) {
      auto first = first_unproven(cond, var, inner);
      if (first && *first > begin && *first < end && (!cut || *first < *cut)) cut = first;
    }
    return cut;
  }
};

}  // namespace

Stmt partition_loops(const Stmt& s) { return Partitioner().mutate(s); }

}  // namespace tessel
