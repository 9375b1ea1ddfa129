// IRVisitor walks expressions and statements without changing them: analyses subclass it and
// override the hooks for the nodes they care about, calling the base hook to keep recursing.
#pragma once
#include <functional>

#include "ir/expr.h"
#include "ir/node_list.h"
#include "ir/stmt.h"

namespace tessel {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  void visit(const Expr& e);
  void visit(const Stmt& s);

 protected:
#define TESSEL_DECLARE_VISIT(T) virtual void visit_node(const T* op);
  TESSEL_BINARY_NODES(TESSEL_DECLARE_VISIT)
  TESSEL_OTHER_EXPR_NODES(TESSEL_DECLARE_VISIT)
  TESSEL_STMT_NODES(TESSEL_DECLARE_VISIT)
#undef TESSEL_DECLARE_VISIT
};

// Whether `e` uses a variable for which `wanted` holds.
bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& wanted);

}  // namespace tessel
