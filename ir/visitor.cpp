// Dispatch and default recursion of IRVisitor.
#include "ir/visitor.h"

namespace tessel {

void IRVisitor::visit(const Expr& e) {
  if (!e.defined()) return;
  switch (e->kind) {
#define TESSEL_DISPATCH(T) \
  case T::kKind: return visit_node(static_cast<const T*>(e.get()));
    TESSEL_BINARY_NODES(TESSEL_DISPATCH)
    TESSEL_OTHER_EXPR_NODES(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
    default: break;
  }
}

void IRVisitor::visit(const Stmt& s) {
  if (!s.defined()) return;
  switch (s->kind) {
#define TESSEL_DISPATCH(T) \
  case T::kKind: return visit_node(static_cast<const T*>(s.get()));
    TESSEL_STMT_NODES(TESSEL_DISPATCH)
#undef TESSEL_DISPATCH
    default: break;
  }
}

#define TESSEL_VISIT_BINARY(T)                  \
  void IRVisitor::visit_node(const T* op) {     \
    visit(op->a);                               \
    visit(op->b);                               \
  }
TESSEL_BINARY_NODES(TESSEL_VISIT_BINARY)
#undef TESSEL_VISIT_BINARY

void IRVisitor::visit_node(const IntImm*) {}
void IRVisitor::visit_node(const FloatImm*) {}
void IRVisitor::visit_node(const VarNode*) {}
void IRVisitor::visit_node(const Not* op) { visit(op->a); }
void IRVisitor::visit_node(const Select* op) {
  visit(op->cond);
  visit(op->true_value);
  visit(op->false_value);
}
void IRVisitor::visit_node(const Cast* op) { visit(op->value); }
void IRVisitor::visit_node(const Call* op) {
  for (const Expr& a : op->args) visit(a);
}
void IRVisitor::visit_node(const TensorRead* op) {
  for (const Expr& i : op->indices) visit(i);
}
void IRVisitor::visit_node(const Reduce* op) {
  visit(op->source);
  visit(op->condition);
  visit(op->init);
}
void IRVisitor::visit_node(const Load* op) { visit(op->index); }
void IRVisitor::visit_node(const Ramp* op) {
  visit(op->base);
  visit(op->stride);
}
void IRVisitor::visit_node(const Broadcast* op) { visit(op->value); }
void IRVisitor::visit_node(const Let* op) {
  visit(op->value);
  visit(op->body);
}

void IRVisitor::visit_node(const For* op) {
  visit(op->min);
  visit(op->extent);
  visit(op->body);
}
void IRVisitor::visit_node(const Store* op) {
  visit(op->index);
  visit(op->value);
}
void IRVisitor::visit_node(const Provide* op) {
  for (const Expr& i : op->indices) visit(i);
  visit(op->value);
}
void IRVisitor::visit_node(const Realize* op) {
  for (const Range& r : op->bounds) {
    visit(r.min);
    visit(r.extent);
  }
  visit(op->body);
}
void IRVisitor::visit_node(const Allocate* op) {
  visit(op->size);
  visit(op->body);
}
void IRVisitor::visit_node(const IfThenElse* op) {
  visit(op->cond);
  visit(op->then_case);
  visit(op->else_case);
}
void IRVisitor::visit_node(const Seq* op) {
  for (const Stmt& s : op->stmts) visit(s);
}
void IRVisitor::visit_node(const LetStmt* op) {
  visit(op->value);
  visit(op->body);
}
void IRVisitor::visit_node(const Evaluate* op) { visit(op->value); }
void IRVisitor::visit_node(const AttrStmt* op) {
  if (auto* var = std::get_if<Var>(&op->subject)) visit(*var);
  visit(op->value);
  visit(op->body);
}

bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& wanted) {
  class Finder : public IRVisitor {
   public:
    explicit Finder(const std::function<bool(const VarNode*)>& wanted) : wanted_(wanted) {}
    bool found = false;

   protected:
    void visit_node(const VarNode* op) override { found = found || wanted_(op); }

   private:
    const std::function<bool(const VarNode*)>& wanted_;
  } finder(wanted);
  finder.visit(e);
  return finder.found;
}

}  // namespace tessel
