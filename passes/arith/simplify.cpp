// Statement rules of the simplifier and its entry points. Loops record their variable's range
// while their body is simplified; loops that never run, guards that always or never hold, and
// statements left with an empty body are removed; a loop of one iteration becomes its body
// (except a ThreadBinding loop, whose extent and tag a GPU back end needs as they are). Evaluate
// statements stay exactly where they are when their call has an effect (ir/intrinsic.h); without
// one they do nothing and are removed.
#include "passes/arith/simplify.h"

#include <algorithm>

#include "ir/intrinsic.h"
#include "passes/arith/simplifier.h"

namespace tessel {

namespace arith {

namespace {

std::optional<bool> const_condition(const Expr& e) {
  auto* i = e.as<IntImm>();
  return i && i->type.is_bool() ? std::optional<bool>(i->value != 0) : std::nullopt;
}

const VarNode* var_node(const Var& v) { return static_cast<const VarNode*>(v.get()); }

// The end c of a loop body that is only `if (var < c) S`, which is a loop ending at c.
std::optional<int64_t> guard_end(const Stmt& body, const Var& var) {
  auto* guard = body.as<IfThenElse>();
  if (!guard || guard->else_case.defined()) return std::nullopt;
  if (auto* lt = guard->cond.as<LT>(); lt && lt->a.same_as(var) && as_const_int(lt->b)) return *as_const_int(lt->b);
  if (auto* le = guard->cond.as<LE>(); le && le->a.same_as(var) && as_const_int(le->b)) return *as_const_int(le->b) + 1;
  return std::nullopt;
}

}  // namespace

Stmt Simplifier::mutate_node(const For* op, const Stmt& self) {
  Expr min = mutate(op->min), extent = mutate(op->extent);
  const int64_t* n = as_const_int(extent);
  bool thread_bound = op->kind == ForKind::ThreadBinding;
  if (n && *n <= 0) return Stmt();
  if (n && *n == 1 && !thread_bound) return mutate(substitute(op->body, {{var_node(op->var), min}}));
  Stmt body = with_bound(op->var, loop_var_bound(min, extent, bounds_), op->body);
  if (!body.defined()) return Stmt();
  // for (v..) { if (v < end) S }  ->  a shorter loop over S
  if (auto end = thread_bound ? std::nullopt : guard_end(body, op->var)) {
    const int64_t* lo = as_const_int(min);
    if (lo && n) {
      int64_t shortened = std::min(*n, *end - *lo);
      if (shortened <= 0) return Stmt();
      return mutate(
          make_for(op->var, min, make_int(shortened, extent.type()), op->kind, body.as<IfThenElse>()->then_case));
    }
  }
  if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return self;
  return make_for(op->var, min, extent, op->kind, body, op->thread_tag);
}

Stmt Simplifier::mutate_node(const IfThenElse* op, const Stmt& self) {
  Expr cond = mutate(op->cond);
  if (auto v = const_condition(cond)) return mutate(*v ? op->then_case : op->else_case);
  Stmt then_case = mutate(op->then_case), else_case = mutate(op->else_case);
  if (!then_case.defined() && !else_case.defined()) return Stmt();
  if (!then_case.defined()) return make_if(mutate(!cond), else_case);
  if (cond.same_as(op->cond) && then_case.same_as(op->then_case) && else_case.same_as(op->else_case)) return self;
  return make_if(cond, then_case, else_case);
}

Stmt Simplifier::mutate_node(const LetStmt* op, const Stmt& self) {
  Expr value = mutate(op->value);
  if (value.as<IntImm>() || value.as<FloatImm>() || value.as<VarNode>())
    return mutate(substitute(op->body, {{var_node(op->var), value}}));
  Stmt body = with_bound(op->var, bound(value), op->body);
  if (!body.defined()) return Stmt();
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return make_let(op->var, value, body);
}

Stmt Simplifier::mutate_node(const Allocate* op, const Stmt& self) {
  Stmt body = mutate(op->body);
  if (!body.defined()) return Stmt();
  Expr size = mutate(op->size);
  if (size.same_as(op->size) && body.same_as(op->body)) return self;
  return make_allocate(op->buffer, size, body);
}

Stmt Simplifier::mutate_node(const Evaluate* op, const Stmt& self) {
  Expr value = mutate(op->value);
  if (!statement_call(value)) return Stmt();
  return value.same_as(op->value) ? self : make_evaluate(value);
}

Stmt Simplifier::mutate_node(const AttrStmt* op, const Stmt& self) {
  Stmt body = mutate(op->body);
  if (!body.defined()) return Stmt();
  Expr value = mutate(op->value);
  if (value.same_as(op->value) && body.same_as(op->body)) return self;
  return make_attr(op->key, op->subject, value, body);
}

Stmt Simplifier::mutate_node(const Realize* op, const Stmt& self) {
  Stmt body = IRMutator::mutate_node(op, self);
  auto* realize = body.as<Realize>();
  return realize && !realize->body.defined() ? Stmt() : body;
}

}  // namespace arith

Expr simplify(const Expr& e, const arith::VarBounds& vars) { return arith::Simplifier(vars).mutate(e); }

Stmt simplify(const Stmt& s, const arith::VarBounds& vars) { return arith::Simplifier(vars).mutate(s); }

bool can_prove(const Expr& cond, const arith::VarBounds& vars) {
  auto v = arith::const_condition(simplify(cond, vars));
  return v && *v;
}

}  // namespace tessel
