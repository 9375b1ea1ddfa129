// Construction of loop-IR statements.
#include "ir/stmt.h"

#include "ir/intrinsic.h"
#include "support/error.h"

namespace tessel {

const char* for_kind_name(ForKind kind) {
  switch (kind) {
    case ForKind::Serial: return "for";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
    case ForKind::ThreadBinding: return "thread_binding";
  }
  return "?";
}

Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag) {
  check_not_statement_call(min, "a loop bound");
  check_not_statement_call(extent, "a loop bound");
  TESSEL_CHECK((kind == ForKind::ThreadBinding) != thread_tag.empty(), "loop ", var.name(), " of kind ",
               for_kind_name(kind), " with thread tag '", thread_tag, "'");
  return Stmt(std::make_shared<For>(std::move(var), std::move(min), std::move(extent), kind, std::move(body),
                                    std::move(thread_tag)));
}

Stmt make_store(Buffer buffer, Expr index, Expr value) {
  check_not_statement_call(index, "an index");
  check_not_statement_call(value, "the value of a store");
  TESSEL_CHECK(value.type().lanes == index.type().lanes, "store of ", value.type().str(), " at a ",
               index.type().str(), " index into ", buffer.name());
  return Stmt(std::make_shared<Store>(std::move(buffer), std::move(index), std::move(value)));
}

Stmt make_provide(std::shared_ptr<const OperationNode> op, std::vector<Expr> indices, Expr value) {
  check_not_statement_call(value, "the value of a tensor element");
  return Stmt(std::make_shared<Provide>(std::move(op), std::move(indices), std::move(value)));
}

Stmt make_realize(std::shared_ptr<const OperationNode> op, std::vector<Range> bounds, MemoryScope scope, Stmt body) {
  return Stmt(std::make_shared<Realize>(std::move(op), std::move(bounds), scope, std::move(body)));
}

Stmt make_allocate(Buffer buffer, Expr size, Stmt body) {
  check_not_statement_call(size, "the size of an allocation");
  return Stmt(std::make_shared<Allocate>(std::move(buffer), std::move(size), std::move(body)));
}

Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  check_not_statement_call(cond, "a condition");
  return Stmt(std::make_shared<IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case)));
}

Stmt make_let(Var var, Expr value, Stmt body) {
  check_not_statement_call(value, "the value of a let");
  return Stmt(std::make_shared<LetStmt>(std::move(var), std::move(value), std::move(body)));
}

Stmt make_seq(const std::vector<Stmt>& stmts) {
  std::vector<Stmt> flat;
  for (const Stmt& s : stmts) {
    if (!s.defined()) continue;
    if (auto* seq = s.as<Seq>()) {
      flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      flat.push_back(s);
    }
  }
  if (flat.empty()) return Stmt();
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<Seq>(std::move(flat)));
}

Stmt make_evaluate(Expr value) {
  TESSEL_CHECK(value.defined(), "evaluate of an undefined expression");
  return Stmt(std::make_shared<Evaluate>(std::move(value)));
}

Stmt make_attr(const std::string& key, AttrSubject subject, Expr value, Stmt body) {
  const AttrKey& declared = attr_key(key);
  AttrSubjectKind kind = subject_kind(subject);
  if (kind != declared.subject)
    user_error("attribute '", key, "' takes ", subject_kind_name(declared.subject), " as its subject, not ",
               subject_kind_name(kind));
  if (!value.defined()) user_error("attribute '", key, "' needs a value");
  check_not_statement_call(value, "the value of an attribute");
  return Stmt(std::make_shared<AttrStmt>(key, std::move(subject), std::move(value), std::move(body)));
}

}  // namespace tessel
