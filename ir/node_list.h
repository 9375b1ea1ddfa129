// X-macro lists of the node types, so visitors, mutators, printers and comparisons stay in step
// with ir/expr.h and ir/stmt.h: adding a node means adding it here and handling it where the
// compiler then complains.
#pragma once

#define TESSEL_BINARY_NODES(X) \
  X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)

#define TESSEL_OTHER_EXPR_NODES(X)                                                             \
  X(IntImm) X(FloatImm) X(VarNode) X(Not) X(Select) X(Cast) X(Call) X(TensorRead) X(Reduce) \
  X(Load) X(Ramp) X(Broadcast) X(Let)

#define TESSEL_STMT_NODES(X) \
  X(For) X(Store) X(Provide) X(Realize) X(Allocate) X(IfThenElse) X(Seq) X(LetStmt) X(Evaluate) X(AttrStmt)
