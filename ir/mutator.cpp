// Dispatch and default (copy-on-change) rebuilding of IRMutator, and variable substitution.
#include "ir/mutator.h"

#include "ir/intrinsic.h"

namespace tessel {

Expr IRMutator::mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e->kind) {
#define TESSEL_DISPATCH(T) \
  case T::kKind: return mutate_node(static_cast<const T*>(e.get()), e);
    TESSEL_BINARY_NODES(TESSEL_DISPATCH)
    TESSEL_OTHER_EXPR_NODES(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
    default: return e;
  }
}

Stmt IRMutator::mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s->kind) {
#define TESSEL_DISPATCH(T) \
  case T::kKind: return mutate_node(static_cast<const T*>(s.get()), s);
    TESSEL_STMT_NODES(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
    default: return s;
  }
}

std::vector<Expr> IRMutator::mutate_all(const std::vector<Expr>& exprs, bool* changed) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) {
    out.push_back(mutate(e));
    if (!out.back().same_as(e)) *changed = true;
  }
  return out;
}

#define TESSEL_MUTATE_BINARY(T)                                  \
  Expr IRMutator::mutate_node(const T* op, const Expr& self) {   \
    Expr a = mutate(op->a), b = mutate(op->b);                   \
    if (a.same_as(op->a) && b.same_as(op->b)) return self;       \
    return make_binary(T::kKind, a, b);                          \
  }
TESSEL_BINARY_NODES(TESSEL_MUTATE_BINARY)
#undef TESSEL_MUTATE_BINARY

Expr IRMutator::mutate_node(const IntImm*, const Expr& self) { return self; }
Expr IRMutator::mutate_node(const FloatImm*, const Expr& self) { return self; }
Expr IRMutator::mutate_node(const VarNode*, const Expr& self) { return self; }

Expr IRMutator::mutate_node(const Not* op, const Expr& self) {
  Expr a = mutate(op->a);
  return a.same_as(op->a) ? self : !a;
}

Expr IRMutator::mutate_node(const Select* op, const Expr& self) {
  Expr c = mutate(op->cond), t = mutate(op->true_value), f = mutate(op->false_value);
  if (c.same_as(op->cond) && t.same_as(op->true_value) && f.same_as(op->false_value)) return self;
  return select(c, t, f);
}

Expr IRMutator::mutate_node(const Cast* op, const Expr& self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : cast(op->type, v);
}

Expr IRMutator::mutate_node(const Call* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> args = mutate_all(op->args, &changed);
  return changed ? make_call(*op->intrinsic, std::move(args)) : self;
}

Expr IRMutator::mutate_node(const TensorRead* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> idx = mutate_all(op->indices, &changed);
  return changed ? Expr(std::make_shared<TensorRead>(op->type, op->op, std::move(idx))) : self;
}

Expr IRMutator::mutate_node(const Reduce* op, const Expr& self) {
  Expr src = mutate(op->source), cond = mutate(op->condition), init = mutate(op->init);
  if (src.same_as(op->source) && cond.same_as(op->condition) && init.same_as(op->init)) return self;
  return Expr(std::make_shared<Reduce>(op->type, op->combiner, src, op->axes, cond, init));
}

Expr IRMutator::mutate_node(const Load* op, const Expr& self) {
  Expr i = mutate(op->index);
  return i.same_as(op->index) ? self : load(op->buffer, i);
}

Expr IRMutator::mutate_node(const Ramp* op, const Expr& self) {
  Expr b = mutate(op->base), s = mutate(op->stride);
  return b.same_as(op->base) && s.same_as(op->stride) ? self : ramp(b, s, op->lanes);
}

Expr IRMutator::mutate_node(const Broadcast* op, const Expr& self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : broadcast(v, op->lanes);
}

Expr IRMutator::mutate_node(const Let* op, const Expr& self) {
  Expr v = mutate(op->value), b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return Expr(std::make_shared<Let>(op->var, v, b));
}

Stmt IRMutator::mutate_node(const For* op, const Stmt& self) {
  Expr mn = mutate(op->min), ext = mutate(op->extent);
  Stmt body = mutate(op->body);
  if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
  return make_for(op->var, mn, ext, op->kind, body, op->thread_tag);
}

Stmt IRMutator::mutate_node(const Store* op, const Stmt& self) {
  Expr i = mutate(op->index), v = mutate(op->value);
  if (i.same_as(op->index) && v.same_as(op->value)) return self;
  return make_store(op->buffer, i, v);
}

Stmt IRMutator::mutate_node(const Provide* op, const Stmt& self) {
  bool changed = false;
  std::vector<Expr> idx = mutate_all(op->indices, &changed);
  Expr v = mutate(op->value);
  if (!changed && v.same_as(op->value)) return self;
  return make_provide(op->op, std::move(idx), v);
}

Stmt IRMutator::mutate_node(const Realize* op, const Stmt& self) {
  bool changed = false;
  std::vector<Range> bounds;
  for (const Range& r : op->bounds) {
    Range m{mutate(r.min), mutate(r.extent)};
    changed |= !m.min.same_as(r.min) || !m.extent.same_as(r.extent);
    bounds.push_back(m);
  }
  Stmt body = mutate(op->body);
  if (!changed && body.same_as(op->body)) return self;
  return make_realize(op->op, std::move(bounds), op->scope, body);
}

Stmt IRMutator::mutate_node(const Allocate* op, const Stmt& self) {
  Expr size = mutate(op->size);
  Stmt body = mutate(op->body);
  if (size.same_as(op->size) && body.same_as(op->body)) return self;
  return make_allocate(op->buffer, size, body);
}

Stmt IRMutator::mutate_node(const IfThenElse* op, const Stmt& self) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_case), e = mutate(op->else_case);
  if (c.same_as(op->cond) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
  return make_if(c, t, e);
}

Stmt IRMutator::mutate_node(const Seq* op, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> stmts;
  for (const Stmt& s : op->stmts) {
    stmts.push_back(mutate(s));
    changed |= !stmts.back().same_as(s);
  }
  return changed ? make_seq(stmts) : self;
}

Stmt IRMutator::mutate_node(const LetStmt* op, const Stmt& self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return make_let(op->var, v, b);
}

Stmt IRMutator::mutate_node(const Evaluate* op, const Stmt& self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : make_evaluate(v);
}

// The subject is not rewritten: a variable subject names a variable, and substituting an
// expression for it would not leave one.
Stmt IRMutator::mutate_node(const AttrStmt* op, const Stmt& self) {
  Expr v = mutate(op->value);
  Stmt b = mutate(op->body);
  if (v.same_as(op->value) && b.same_as(op->body)) return self;
  return make_attr(op->key, op->subject, v, b);
}

namespace {
class Substituter : public IRMutator {
 public:
  explicit Substituter(const std::unordered_map<const VarNode*, Expr>& m) : map_(m) {}

 protected:
  Expr mutate_node(const VarNode* op, const Expr& self) override {
    auto it = map_.find(op);
    return it == map_.end() ? self : it->second;
  }

 private:
  const std::unordered_map<const VarNode*, Expr>& map_;
};
}  // namespace

Expr substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map) {
  return map.empty() ? e : Substituter(map).mutate(e);
}
Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map) {
  return map.empty() ? s : Substituter(map).mutate(s);
}

}  // namespace tessel
