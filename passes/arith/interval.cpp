// Symbolic interval analysis (see interval.h): interval arithmetic over expressions, exact for
// sums, products and floor divisions by constants; anything it cannot bound that depends on a
// relaxed variable becomes unbounded, which bound inference turns into "the whole tensor".
#include "passes/arith/interval.h"

#include "ir/visitor.h"
#include "passes/arith/simplify.h"

namespace tessel::arith {

namespace {

Expr both(const Expr& a, const Expr& b, Expr (*f)(Expr, Expr)) { return a.defined() && b.defined() ? f(a, b) : Expr(); }
// The end that exists when only one does (the tighter side of a min's max or a max's min).
Expr either(const Expr& a, const Expr& b, Expr (*f)(Expr, Expr)) {
  return a.defined() && b.defined() ? f(a, b) : a.defined() ? a : b;
}
Expr add_ends(Expr a, Expr b) { return a + b; }
Expr sub_ends(Expr a, Expr b) { return a - b; }
Expr min_ends(Expr a, Expr b) { return min(a, b); }
Expr max_ends(Expr a, Expr b) { return max(a, b); }

// The constant an interval holds, if it is a single constant.
const int64_t* constant_of(const Interval& i) {
  const int64_t* lo = i.min.defined() ? as_const_int(i.min) : nullptr;
  const int64_t* hi = i.max.defined() ? as_const_int(i.max) : nullptr;
  return lo && hi && *lo == *hi ? lo : nullptr;
}

Interval scale(const Interval& a, int64_t c) {
  if (!a.min.defined() && !a.max.defined()) return a;
  Expr k = make_int(c, a.min.defined() ? a.min.type() : a.max.type());
  Expr lo = a.min.defined() ? a.min * k : Expr(), hi = a.max.defined() ? a.max * k : Expr();
  return c >= 0 ? Interval{lo, hi} : Interval{hi, lo};
}

// The node kinds with an interval rule; any other node using a relaxed variable (loads, calls,
// lets, comparisons, ...) is unbounded.
bool is_bounded_kind(NodeKind k) {
  switch (k) {
    case NodeKind::Var:
    case NodeKind::Add:
    case NodeKind::Sub:
    case NodeKind::Mul:
    case NodeKind::Div:
    case NodeKind::Mod:
    case NodeKind::Min:
    case NodeKind::Max:
    case NodeKind::Select:
    case NodeKind::Cast: return true;
    default: return false;
  }
}

class IntervalEvaluator : public IRVisitor {
 public:
  explicit IntervalEvaluator(const VarIntervals& relax) : relax_(relax) {}

  Interval eval(const Expr& e) {
    if (!uses_var(e, [&](const VarNode* v) { return relax_.count(v) > 0; })) return Interval::point(e);
    if (!is_bounded_kind(e->kind)) return Interval{};
    visit(e);
    return result_;
  }

 protected:
  void visit_node(const VarNode* op) override { result_ = relax_.at(op); }
  void visit_node(const Add* op) override {
    Interval a = eval(op->a), b = eval(op->b);
    result_ = {both(a.min, b.min, add_ends), both(a.max, b.max, add_ends)};
  }
  void visit_node(const Sub* op) override {
    Interval a = eval(op->a), b = eval(op->b);
    result_ = {both(a.min, b.max, sub_ends), both(a.max, b.min, sub_ends)};
  }
  void visit_node(const Mul* op) override {
    Interval a = eval(op->a), b = eval(op->b);
    if (const int64_t* c = constant_of(b))
      result_ = scale(a, *c);
    else if (const int64_t* c = constant_of(a))
      result_ = scale(b, *c);
    else
      result_ = Interval{};
  }
  void visit_node(const Div* op) override {
    Interval a = eval(op->a);
    const int64_t* c = constant_of(eval(op->b));
    if (!c || *c == 0 || !op->type.is_int()) {
      result_ = Interval{};
      return;
    }
    Expr lo = a.min.defined() ? a.min / op->b : Expr(), hi = a.max.defined() ? a.max / op->b : Expr();
    result_ = *c > 0 ? Interval{lo, hi} : Interval{hi, lo};
  }
  void visit_node(const Mod* op) override {
    const int64_t* c = constant_of(eval(op->b));
    if (c && *c > 0 && op->type.is_int())
      result_ = {make_zero(op->type), make_int(*c - 1, op->type)};
    else
      result_ = Interval{};
  }
  void visit_node(const Min* op) override {
    Interval a = eval(op->a), b = eval(op->b);
    result_ = {both(a.min, b.min, min_ends), either(a.max, b.max, min_ends)};
  }
  void visit_node(const Max* op) override {
    Interval a = eval(op->a), b = eval(op->b);
    result_ = {either(a.min, b.min, max_ends), both(a.max, b.max, max_ends)};
  }
  void visit_node(const Select* op) override {
    Interval t = eval(op->true_value), f = eval(op->false_value);
    result_ = {both(t.min, f.min, min_ends), both(t.max, f.max, max_ends)};
  }
  void visit_node(const Cast* op) override {
    if (!op->type.is_index() || !op->value.type().is_index()) {
      result_ = Interval{};
      return;
    }
    Interval v = eval(op->value);
    result_ = {v.min.defined() ? cast(op->type, v.min) : Expr(), v.max.defined() ? cast(op->type, v.max) : Expr()};
  }

 private:
  const VarIntervals& relax_;
  Interval result_;
};

}  // namespace

Interval eval_interval(const Expr& e, const VarIntervals& relax) {
  Interval r = IntervalEvaluator(relax).eval(e);
  return {r.min.defined() ? simplify(r.min) : Expr(), r.max.defined() ? simplify(r.max) : Expr()};
}

}  // namespace tessel::arith
