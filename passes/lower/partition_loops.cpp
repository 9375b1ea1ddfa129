// Loop partitioning (see partition_loops.h). A guard conjunct d < 0, with d = c*v + rest linear in
// the loop variable v, holds for every inner iteration on one side of a cut point: below it when
// c > 0, from it on when c < 0. With constant cuts the loop becomes a prefix, a main part where
// every such conjunct holds, and a suffix. A cut that depends on outer variables (the row of a
// fused channel×row loop) instead unswitches the main part: `if (the guard holds over the whole
// loop) fast copy else original`, so loop extents stay constant. A guard that outer variables
// decide without the loop's own (a pixel tile's ragged last rows, `f%9*6 < 44`, at every step of
// the reduction) unswitches the outermost serial loop it is invariant in the same way. Left to
// LLVM, such a loop was unswitched only while a budget the rest of the function shares allowed: a
// loop of prefetches beside it left the guards in, and its accumulators in memory, on AVX2. The
// fast parts get the proven conjuncts replaced by true and the clamps they make redundant removed
// (padding reads min(max(i, 0), H - 1), which is i where 0 <= i < H).
#include "passes/lower/partition_loops.h"

#include <optional>
#include <unordered_set>

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/arith/const_bound.h"
#include "passes/arith/linear_form.h"
#include "passes/arith/simplify.h"

namespace tessel {

namespace {

using arith::ConstBound;
using arith::LinearForm;
using arith::VarBounds;
using VarSet = std::unordered_set<const VarNode*>;

const VarNode* var_node(const Var& v) { return static_cast<const VarNode*>(v.get()); }

// d with `cond` meaning d < 0, for `a < b` and `a <= b` over scalar integers.
std::optional<LinearForm> as_negative_form(const Expr& cond) {
  auto* lt = cond.as<LT>();
  auto* le = cond.as<LE>();
  if (!lt && !le) return std::nullopt;
  const Expr& a = lt ? lt->a : le->a;
  const Expr& b = lt ? lt->b : le->b;
  if (!a.type().is_int() || a.type().lanes != 1) return std::nullopt;
  LinearForm d = arith::to_linear(a);
  d.add(arith::to_linear(b), -1);
  if (le) d.constant -= 1;  // d <= 0  <=>  d - 1 < 0
  return d;
}

// One conjunct of a guard (d < 0) with the ranges of the loops between the partitioned loop and it.
struct Guard {
  LinearForm d;
  VarBounds inner;
};

// Whether the partitioner cuts a loop of this kind and range (unrolled and vectorized loops are
// left whole).
bool cuttable(ForKind kind, const int64_t* min, const int64_t* extent) {
  return min && extent && *extent > 0 && (kind == ForKind::Serial || kind == ForKind::Parallel);
}

// The conjuncts of every guard (if conditions and select conditions) in a loop body, every
// variable the body binds, those it binds more than once (a fact about one binding's range would
// not hold for the other's), and those of loops the partitioner cuts in turn.
class GuardCollector : public IRVisitor {
 public:
  std::vector<Guard> guards;
  VarSet bound, rebound, cut_loops;

 protected:
  void visit_node(const For* op) override {
    bind(op->var);
    const int64_t *min = as_const_int(op->min), *extent = as_const_int(op->extent);
    if (cuttable(op->kind, min, extent)) cut_loops.insert(var_node(op->var));
    if (!min || !extent) return;  // guards below it cannot be bounded; leave them alone
    inner_[var_node(op->var)] = {*min, *min + *extent - 1};
    IRVisitor::visit_node(op);
    inner_.erase(var_node(op->var));
  }
  void visit_node(const LetStmt* op) override {
    bind(op->var);
    IRVisitor::visit_node(op);
  }
  void visit_node(const Let* op) override {
    bind(op->var);
    IRVisitor::visit_node(op);
  }
  void visit_node(const IfThenElse* op) override {
    add(op->cond);
    IRVisitor::visit_node(op);
  }
  void visit_node(const Select* op) override {
    auto* b = op->cond.as<Broadcast>();
    add(b ? b->value : op->cond);
    IRVisitor::visit_node(op);
  }

 private:
  void bind(const Var& v) {
    if (!bound.insert(var_node(v)).second) rebound.insert(var_node(v));
  }
  void add(const Expr& cond) {
    if (auto* both = cond.as<And>()) return add(both->a), add(both->b);
    if (auto d = as_negative_form(cond)) guards.push_back({*d, inner_});
  }
  VarBounds inner_;
};

// Whether `e` reads memory or uses a variable in `vars` (either makes it vary inside the loop).
bool varies_with(const Expr& e, const VarSet& vars) {
  struct Finder : IRVisitor {
    const VarSet& vars;
    bool found = false;
    explicit Finder(const VarSet& v) : vars(v) {}
    void visit_node(const VarNode* op) override { found |= vars.count(op) > 0; }
    void visit_node(const Load* op) override { found = true; }
    void visit_node(const TensorRead* op) override { found = true; }
  } finder(vars);
  finder.visit(e);
  return finder.found;
}

// Where a guard starts (lower) or stops holding for every inner iteration: v >= at, or v < at; or,
// for a guard without v, the condition over outer variables under which it always holds.
struct Cut {
  bool lower;
  Expr at;  // constant unless the guard has terms over outer variables
  LinearForm fact;
  Expr always;  // defined for a guard invariant in the loop
};

// The cut of guard g on loop variable v, if g is linear in v. Terms over variables bound outside
// the loop make the cut an expression; they are accepted only when `symbolic` is, and a guard that
// only they decide (v's coefficient 0) only when `invariant` is.
std::optional<Cut> cut_of(const Guard& g, const Var& v, const GuardCollector& body, bool symbolic, bool invariant) {
  int64_t c = 0;
  LinearForm inner{g.d.type, {}, g.d.constant}, outer{g.d.type, {}, 0};
  VarSet loop_var = {var_node(v)};
  for (const arith::LinearTerm& t : g.d.terms) {
    if (t.atom.get() == v.get())
      c = t.coef;
    else if (varies_with(t.atom, loop_var) || varies_with(t.atom, body.rebound))
      return std::nullopt;  // not linear in v, or over a variable of two ranges
    else if (varies_with(t.atom, body.bound))
      inner.add_term(t.atom, t.coef);
    else
      outer.add_term(t.atom, t.coef);
  }
  ConstBound r = arith::const_bound(arith::from_linear(inner), g.inner);
  bool bounded = r.has_max() && r.max < (int64_t{1} << 40) && r.max > -(int64_t{1} << 40);
  if (!bounded || (!outer.is_constant() && !symbolic)) return std::nullopt;
  // The guard holds for every inner iteration when c*v + x < 0.
  Expr x = cast(v.type(), arith::from_linear(outer) + make_int(r.max, g.d.type));
  // A guard without v, over outer variables and those of inner loops that stay whole (the pixel
  // rows a tile unrolls): one over an inner loop that is cut is better cut there.
  if (c == 0) {
    if (outer.is_constant() || !invariant || varies_with(arith::from_linear(inner), body.cut_loops))
      return std::nullopt;
    return Cut{false, Expr(), g.d, simplify(x < make_int(0, v.type()))};
  }
  if (c > 0) return Cut{false, simplify((Expr(-1) - x) / make_int(c, v.type()) + 1), g.d};
  return Cut{true, simplify(x / make_int(-c, v.type()) + 1), g.d};
}

// Rewrites inside the main part, where every fact (d < 0) holds: comparisons the facts imply
// become true, and min/max whose order they imply become the operand they pick.
class FactApplier : public IRMutator {
 public:
  explicit FactApplier(std::vector<LinearForm> facts) : facts_(std::move(facts)) {}

 protected:
  Expr mutate_node(const LT* op, const Expr& self) override { return decide(IRMutator::mutate_node(op, self)); }
  Expr mutate_node(const LE* op, const Expr& self) override { return decide(IRMutator::mutate_node(op, self)); }
  Expr mutate_node(const Min* op, const Expr& self) override {
    return pick<Min>(IRMutator::mutate_node(op, self), true);
  }
  Expr mutate_node(const Max* op, const Expr& self) override {
    return pick<Max>(IRMutator::mutate_node(op, self), false);
  }

 private:
  // The operand of a min (smaller) or max whose order with the other the facts imply.
  template <typename T>
  Expr pick(const Expr& e, bool smaller) const {
    auto* m = e.as<T>();
    if (m && at_most(m->a, m->b)) return smaller ? m->a : m->b;
    if (m && at_most(m->b, m->a)) return smaller ? m->b : m->a;
    return e;
  }
  Expr decide(const Expr& e) const {
    auto d = as_negative_form(e);
    return d && implied(*d) ? make_int(1, DataType::boolean()) : e;
  }
  bool at_most(const Expr& a, const Expr& b) const {
    if (!a.type().is_int() || a.type().lanes != 1 || a.type() != b.type()) return false;
    LinearForm d = arith::to_linear(a);
    d.add(arith::to_linear(b), -1);
    d.constant -= 1;  // a <= b  <=>  a - b - 1 < 0
    return implied(d);
  }
  // d <= f for a fact f < 0: the same terms and no larger a constant.
  bool implied(const LinearForm& d) const {
    for (const LinearForm& f : facts_) {
      if (f.type != d.type) continue;
      LinearForm diff = d;
      diff.add(f, -1);
      if (diff.is_constant() && diff.constant <= 0) return true;
    }
    return false;
  }
  std::vector<LinearForm> facts_;
};

// How a loop over [begin, end) is cut: the main part [lo, hi) and the facts that hold in it; and
// the facts that hold over the whole loop when `switch_cond` (over outer variables) does.
struct Partition {
  int64_t lo, hi;
  std::vector<LinearForm> facts;
  Expr switch_cond;
  std::vector<LinearForm> switched_facts;
};

// Puts the loop behind `cond` (over outer variables), under which `fact` holds in all of it.
void add_switch(Partition& part, const Expr& cond, const LinearForm& fact) {
  part.switch_cond = part.switch_cond.defined() ? (part.switch_cond && cond) : cond;
  part.switched_facts.push_back(fact);
}

// Adds a cut to `part`; a constant cut that would leave no main part is ignored.
void add_cut(Partition& part, const Cut& cut, const Expr& begin, const Expr& end) {
  if (cut.always.defined()) return add_switch(part, cut.always, cut.fact);
  if (const int64_t* at = as_const_int(cut.at)) {
    int64_t lo = cut.lower ? std::max(part.lo, *at) : part.lo, hi = cut.lower ? part.hi : std::min(part.hi, *at);
    if (lo >= hi) return;
    part.lo = lo, part.hi = hi;
    part.facts.push_back(cut.fact);
    return;
  }
  add_switch(part, cut.lower ? cut.at <= begin : end <= cut.at, cut.fact);
}

class Partitioner : public IRMutator {
 protected:
  Stmt mutate_node(const For* op, const Stmt& self) override {
    const int64_t *min = as_const_int(op->min), *extent = as_const_int(op->extent);
    if (!cuttable(op->kind, min, extent)) return IRMutator::mutate_node(op, self);
    Partition part = partition(*op, *min, *min + *extent);
    if (part.facts.empty() && part.switched_facts.empty()) return IRMutator::mutate_node(op, self);
    bool switching = part.switch_cond.defined();
    switches_ += switching;
    Stmt result = split(*op, part, *min, *min + *extent);
    switches_ -= switching;
    return result;
  }

 private:
  // Each branch doubles the code below it, so branches nest this deep at most.
  static constexpr int kMaxNestedSwitches = 2;

  // Cuts over outer variables are taken only on serial loops, where a branch per entry is cheap.
  // Invariant guards switch a loop only outside any other branch, so that the outermost loop they
  // are invariant in takes them and the guarded copy does not branch on them again further in; and
  // only a loop without cuts of its own, whose fast part they would otherwise hide behind a
  // condition that may rarely hold (a window's rows in a border column, whose guards the column
  // loop's cut leaves there).
  Partition partition(const For& loop, int64_t begin, int64_t end) const {
    GuardCollector collector;
    collector.visit(loop.body);
    Partition part{begin, end, {}, Expr(), {}};
    Expr first = make_int(begin, loop.var.type()), last = make_int(end, loop.var.type());
    bool symbolic = loop.kind == ForKind::Serial && switches_ < kMaxNestedSwitches;
    bool invariant = symbolic && switches_ == 0;
    std::vector<Cut> invariant_cuts;
    for (const Guard& g : collector.guards) {
      std::optional<Cut> cut = cut_of(g, loop.var, collector, symbolic, invariant);
      if (!cut) continue;
      if (cut->always.defined())
        invariant_cuts.push_back(*cut);
      else
        add_cut(part, *cut, first, last);
    }
    if (part.facts.empty() && part.switched_facts.empty())
      for (const Cut& cut : invariant_cuts) add_cut(part, cut, first, last);
    return part;
  }

  // The prefix, the main part (behind the switch, if any) and the suffix; for a parallel loop, one
  // loop whose iterations branch between them.
  Stmt split(const For& loop, const Partition& part, int64_t begin, int64_t end) {
    Stmt main_body = FactApplier(part.facts).mutate(loop.body);
    Stmt body = begin < part.lo || part.hi < end ? mutate(loop.body) : Stmt();
    if (loop.kind == ForKind::Parallel && body.defined())
      return branched(loop, part, begin, end, mutate(main_body), body);
    std::vector<Stmt> pieces;
    add_piece(pieces, loop, begin, part.lo, body);
    add_piece(pieces, loop, part.lo, part.hi, mutate(main_body));
    if (part.switch_cond.defined())
      pieces.back() = make_if(simplify(part.switch_cond), switched(loop, part, main_body), pieces.back());
    add_piece(pieces, loop, part.hi, end, body);
    return pieces.size() == 1 ? pieces[0] : make_seq(pieces);
  }

  // The main part where the switch condition holds: every switched fact holds too.
  Stmt switched(const For& loop, const Partition& part, const Stmt& main_body) {
    Stmt body = mutate(FactApplier(part.switched_facts).mutate(main_body));
    return make_for(loop.var, make_int(part.lo, loop.var.type()), make_int(part.hi - part.lo, loop.var.type()),
                    loop.kind, body);
  }

  // A parallel loop keeps every iteration, those outside the main part taking the guarded body in
  // a branch. Peeled into loops of their own, the border iterations would run on one thread while
  // the others wait: a fused block's first row tile, 1 of 8, then ran alone.
  static Stmt branched(const For& loop, const Partition& part, int64_t begin, int64_t end, const Stmt& main,
                       const Stmt& border) {
    Expr v = loop.var, inside;
    auto conjoin = [&](Expr c) { inside = inside.defined() ? (inside && c) : c; };
    if (begin < part.lo) conjoin(make_int(part.lo, v.type()) <= v);
    if (part.hi < end) conjoin(v < make_int(part.hi, v.type()));
    return make_for(loop.var, make_int(begin, v.type()), make_int(end - begin, v.type()), loop.kind,
                    make_if(inside, main, border));
  }

  static void add_piece(std::vector<Stmt>& pieces, const For& loop, int64_t from, int64_t to, const Stmt& body) {
    if (to <= from) return;
    pieces.push_back(make_for(loop.var, make_int(from, loop.var.type()), make_int(to - from, loop.var.type()),
                              loop.kind, body));
  }

  int switches_ = 0;  // branches around the loop being partitioned
};

}  // namespace

Stmt partition_loops(const Stmt& s) { return Partitioner().mutate(s); }

}  // namespace tessel
