// IRMutator rewrites expressions and statements: a pass subclasses it and overrides the hooks of
// the nodes it changes. The default hooks rebuild a node only when a child changed, so untouched
// subtrees stay shared.
#pragma once
#include <unordered_map>

#include "ir/expr.h"
#include "ir/node_list.h"
#include "ir/stmt.h"

namespace tessel {

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr mutate(const Expr& e);
  virtual Stmt mutate(const Stmt& s);

 protected:
  // `self` is the handle of `op`, returned as is when nothing changes.
#define TESSEL_DECLARE_MUTATE(T) virtual Expr mutate_node(const T* op, const Expr& self);
  TESSEL_BINARY_NODES(TESSEL_DECLARE_MUTATE)
  TESSEL_OTHER_EXPR_NODES(TESSEL_DECLARE_MUTATE)
#undef TESSEL_DECLARE_MUTATE
#define TESSEL_DECLARE_MUTATE(T) virtual Stmt mutate_node(const T* op, const Stmt& self);
  TESSEL_STMT_NODES(TESSEL_DECLARE_MUTATE)
#undef TESSEL_DECLARE_MUTATE

  std::vector<Expr> mutate_all(const std::vector<Expr>& exprs, bool* changed);
};

// Replaces variables by expressions (keyed by VarNode) throughout e or s.
Expr substitute(const Expr& e, const std::unordered_map<const VarNode*, Expr>& map);
Stmt substitute(const Stmt& s, const std::unordered_map<const VarNode*, Expr>& map);

}  // namespace tessel
