// Sliding windows and storage folding (see sliding_window.h).
#include "passes/lower/sliding_window.h"

#include "ir/mutator.h"
#include "ir/printer.h"
#include "ir/visitor.h"
#include "passes/arith/simplify.h"
#include "support/error.h"

namespace tessel {

namespace {

// How an expression changes as one variable grows: not at all, never downwards, or unknown.
enum class Trend { Constant, Rising, Unknown };

Trend both(Trend a, Trend b) {
  if (a == Trend::Unknown || b == Trend::Unknown) return Trend::Unknown;
  return a == Trend::Rising || b == Trend::Rising ? Trend::Rising : Trend::Constant;
}

// The trend of `e` in `var`, by structure: sums, min and max of rising terms rise, and so do
// their products with and floor quotients by non-negative constants. Region starts from bound
// inference have that form (max(r * stride - pad, 0)); anything else counts as unknown.
Trend trend(const Expr& e, const VarNode* var) {
  if (auto* v = e.as<VarNode>()) return v == var ? Trend::Rising : Trend::Constant;
  if (as_const_int(e)) return Trend::Constant;
  if (auto* op = e.as<Add>()) return both(trend(op->a, var), trend(op->b, var));
  if (auto* op = e.as<Min>()) return both(trend(op->a, var), trend(op->b, var));
  if (auto* op = e.as<Max>()) return both(trend(op->a, var), trend(op->b, var));
  if (auto* op = e.as<Sub>()) return trend(op->b, var) == Trend::Constant ? trend(op->a, var) : Trend::Unknown;
  if (auto* op = e.as<Mul>()) {
    if (const int64_t* c = as_const_int(op->b); c && *c >= 0) return trend(op->a, var);
    if (const int64_t* c = as_const_int(op->a); c && *c >= 0) return trend(op->b, var);
  }
  if (auto* op = e.as<Div>())
    if (const int64_t* c = as_const_int(op->b); c && *c > 0) return trend(op->a, var);
  return uses_var(e, [&](const VarNode* v) { return v == var; }) ? Trend::Unknown : Trend::Constant;
}

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Every write and read of one tensor, its index along `dim` taken modulo `fold`.
class FoldAccesses : public IRMutator {
 public:
  FoldAccesses(const OperationNode* op, int dim, int64_t fold) : op_(op), dim_(dim), fold_(fold) {}

 protected:
  Stmt mutate_node(const Provide* op, const Stmt& self) override {
    bool changed = false;
    std::vector<Expr> indices = mutate_all(op->indices, &changed);
    Expr value = mutate(op->value);
    if (op->op.get() == op_) indices[dim_] = indices[dim_] % make_int(fold_);
    return make_provide(op->op, std::move(indices), std::move(value));
  }

  Expr mutate_node(const TensorRead* op, const Expr& self) override {
    bool changed = false;
    std::vector<Expr> indices = mutate_all(op->indices, &changed);
    if (op->op.get() != op_) return changed ? Expr(std::make_shared<TensorRead>(op->type, op->op, indices)) : self;
    indices[dim_] = indices[dim_] % make_int(fold_);
    return Expr(std::make_shared<TensorRead>(op->type, op->op, std::move(indices)));
  }

 private:
  const OperationNode* op_;
  int dim_;
  int64_t fold_;
};

}  // namespace

SlidingWindow plan_sliding_window(const PlannedStage& s, const AxisRanges& ranges) {
  SlidingWindow w;
  const IterVar& loop = s.parent->stage->leaf_axes[s.attach_pos];
  w.loop = loop.var();
  const VarNode* var = w.loop.operator->();
  const std::string& name = s.op.name();
  for (int d = 0; d < s.op.ndim(); ++d) {
    const IterVar& axis = s.op->axis[d];
    Trend t = trend(ranges.at(axis.get()).min, var);
    if (t == Trend::Constant) continue;
    if (t == Trend::Unknown)
      user_error("store_at: the region of '", name, "' along axis '", axis.name(), "' starts at ",
                 to_string(ranges.at(axis.get()).min), ", which may move backwards as loop '", loop.name(),
                 "' advances; a sliding window needs a start that only moves forward (compute it without store_at)");
    if (w.dim >= 0)
      user_error("store_at: the region of '", name, "' moves along both axis '", s.op->axis[w.dim].name(), "' and '",
                 axis.name(), "' as loop '", loop.name(), "' advances; a sliding window moves along one axis");
    w.dim = d;
  }
  if (w.dim < 0) return w;
  const Range& range = ranges.at(s.op->axis[w.dim].get());
  const int64_t* extent = as_const_int(range.extent);
  TESSEL_CHECK(extent, "bound inference gave '", name, "' a region of non-constant extent");
  int64_t ring = next_power_of_two(*extent);
  w.fold = ring < s.op.shape()[w.dim] ? ring : 0;  // a ring as large as the tensor: the tensor itself
  w.previous_end = simplify(substitute(range.min, {{var, w.loop - make_int(1)}}) + range.extent);
  return w;
}

Expr computes_point(const SlidingWindow& w, const Expr& index) {
  Expr first = eq(w.loop, make_zero(w.loop.type()));
  return w.dim < 0 ? first : (first || index >= w.previous_end);
}

Stmt realize_sliding(const PlannedStage& s, const AxisRanges& ranges, const SlidingWindow& w, const Stmt& body) {
  std::vector<Range> bounds;
  for (const IterVar& axis : s.op->axis) bounds.push_back(ranges.at(axis.get()));
  Stmt folded = body;
  if (w.dim >= 0) {
    bounds[w.dim] = Range{make_zero(DataType::int32()), make_int(w.fold ? w.fold : s.op.shape()[w.dim])};
    if (w.fold) folded = FoldAccesses(s.op.get(), w.dim, w.fold).mutate(body);
  }
  return make_realize(s.op.ptr(), bounds, s.stage->scope.value_or(MemoryScope::local()), folded);
}

}  // namespace tessel
