// Construction of loop-IR statements.
#include "ir/stmt.h"

#include "support/error.h"

namespace tessel {

const char* for_kind_name(ForKind kind) {
  switch (kind) {
    case ForKind::Serial: return "for";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
  }
  return "?";
}

Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body) {
  return Stmt(std::make_shared<For>(std::move(var), std::move(min), std::move(extent), kind, std::move(body)));
}

Stmt make_store(Buffer buffer, Expr index, Expr value) {
  TESSEL_CHECK(value.type().lanes == index.type().lanes, "store of ", value.type().str(), " at a ",
               index.type().str(), " index into ", buffer.name());
  return Stmt(std::make_shared<Store>(std::move(buffer), std::move(index), std::move(value)));
}

Stmt make_provide(std::shared_ptr<const OperationNode> op, std::vector<Expr> indices, Expr value) {
  return Stmt(std::make_shared<Provide>(std::move(op), std::move(indices), std::move(value)));
}

Stmt make_realize(std::shared_ptr<const OperationNode> op, std::vector<Range> bounds, Stmt body) {
  return Stmt(std::make_shared<Realize>(std::move(op), std::move(bounds), std::move(body)));
}

Stmt make_allocate(Buffer buffer, Expr size, Stmt body) {
  return Stmt(std::make_shared<Allocate>(std::move(buffer), std::move(size), std::move(body)));
}

Stmt make_if(Expr cond, Stmt then_case, Stmt else_case) {
  return Stmt(std::make_shared<IfThenElse>(std::move(cond), std::move(then_case), std::move(else_case)));
}

Stmt make_let(Var var, Expr value, Stmt body) {
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

}  // namespace tessel
