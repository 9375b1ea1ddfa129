// Statements of the loop IR: the program that lowering produces from a schedule.
//
// Before storage flattening, tensors are written with Provide and given storage by Realize, both
// indexed in the tensor's own multi-dimensional coordinates; flattening turns them into Store and
// Allocate on flat Buffers, which is all a code generator sees.
//
// Two statements exist for the layers after the CPU: AttrStmt marks a region as special (the
// threads of a bound loop, a pragma; keys in ir/attr.h) and Evaluate runs a call for its effect
// (a prefetch, a fill; intrinsics in ir/intrinsic.h).
#pragma once
#include <string>
#include <vector>

#include "ir/attr.h"
#include "ir/expr.h"

namespace tessel {

struct StmtNode : Node {
  using Node::Node;
};

class Stmt : public Handle<StmtNode> {
 public:
  using Handle::Handle;
};

// How a loop runs; also what a schedule asks of an axis (Stage::vectorize/unroll/parallel/bind).
// A ThreadBinding loop runs its iterations on the threads of its tag ("threadIdx.x"): a GPU back
// end maps it to threads, the interpreters run it as a serial loop (its meaning is that of a
// loop), and the CPU back ends refuse it.
enum class ForKind : uint8_t { Serial, Parallel, Vectorized, Unrolled, ThreadBinding };
// The keyword of the loop in printed IR: for, parallel, vectorized, unrolled, thread_binding.
const char* for_kind_name(ForKind kind);

struct For : StmtNode {
  static constexpr NodeKind kKind = NodeKind::For;
  For(Var v, Expr mn, Expr ext, ForKind k, Stmt b, std::string tag)
      : StmtNode(kKind), var(std::move(v)), min(std::move(mn)), extent(std::move(ext)), kind(k), body(std::move(b)),
        thread_tag(std::move(tag)) {}
  const Var var;
  const Expr min, extent;
  const ForKind kind;
  const Stmt body;
  const std::string thread_tag;  // the thread tag of a ThreadBinding loop; empty for the others
};

// buffer[index] = value; a Ramp index stores a vector.
struct Store : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Store;
  Store(Buffer b, Expr i, Expr v) : StmtNode(kKind), buffer(std::move(b)), index(std::move(i)), value(std::move(v)) {}
  const Buffer buffer;
  const Expr index, value;
};

// op's output at `indices` = value (before flattening).
struct Provide : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Provide;
  Provide(std::shared_ptr<const OperationNode> o, std::vector<Expr> idx, Expr v)
      : StmtNode(kKind), op(std::move(o)), indices(std::move(idx)), value(std::move(v)) {}
  const std::shared_ptr<const OperationNode> op;
  const std::vector<Expr> indices;
  const Expr value;
};

// Storage in `scope` for the region `bounds` of op's output, live within body (before flattening).
struct Realize : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Realize;
  Realize(std::shared_ptr<const OperationNode> o, std::vector<Range> bnds, MemoryScope s, Stmt b)
      : StmtNode(kKind), op(std::move(o)), bounds(std::move(bnds)), scope(s), body(std::move(b)) {}
  const std::shared_ptr<const OperationNode> op;
  const std::vector<Range> bounds;
  const MemoryScope scope;
  const Stmt body;
};

// A temporary buffer of `size` elements in the buffer's scope, live within body.
struct Allocate : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Allocate;
  Allocate(Buffer buf, Expr sz, Stmt b) : StmtNode(kKind), buffer(std::move(buf)), size(std::move(sz)), body(std::move(b)) {}
  const Buffer buffer;
  const Expr size;
  const Stmt body;
};

struct IfThenElse : StmtNode {
  static constexpr NodeKind kKind = NodeKind::IfThenElse;
  IfThenElse(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  const Expr cond;
  const Stmt then_case, else_case;  // else_case may be undefined
};

struct Seq : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Seq;
  explicit Seq(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  const std::vector<Stmt> stmts;
};

struct LetStmt : StmtNode {
  static constexpr NodeKind kKind = NodeKind::LetStmt;
  LetStmt(Var v, Expr val, Stmt b) : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  const Var var;
  const Expr value;
  const Stmt body;
};

// Runs a call for its effect (its value is dropped): `fill(&acc[0], 0f, 16)` in printed IR.
struct Evaluate : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Evaluate;
  explicit Evaluate(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  const Expr value;
};

// body, marked with an attribute: `key` (declared in ir/attr.h) about `subject`, with `value`.
struct AttrStmt : StmtNode {
  static constexpr NodeKind kKind = NodeKind::AttrStmt;
  AttrStmt(std::string k, AttrSubject s, Expr v, Stmt b)
      : StmtNode(kKind), key(std::move(k)), subject(std::move(s)), value(std::move(v)), body(std::move(b)) {}
  const std::string key;
  const AttrSubject subject;
  const Expr value;
  const Stmt body;
};

// `thread_tag` is required for ThreadBinding loops (one of thread_tags()) and empty otherwise.
Stmt make_for(Var var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "");
Stmt make_store(Buffer buffer, Expr index, Expr value);
Stmt make_provide(std::shared_ptr<const OperationNode> op, std::vector<Expr> indices, Expr value);
Stmt make_realize(std::shared_ptr<const OperationNode> op, std::vector<Range> bounds, MemoryScope scope, Stmt body);
Stmt make_allocate(Buffer buffer, Expr size, Stmt body);
Stmt make_if(Expr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt make_let(Var var, Expr value, Stmt body);
// A sequence, flattening nested sequences and dropping undefined statements.
Stmt make_seq(const std::vector<Stmt>& stmts);
Stmt make_evaluate(Expr value);
// Checks that `key` is declared (ir/attr.h), that the subject is of the kind it takes and that the
// value is defined; throws UserError otherwise.
Stmt make_attr(const std::string& key, AttrSubject subject, Expr value, Stmt body);

// An argument of a lowered function: a flat buffer plus the tensor shape it holds.
struct FuncArg {
  Buffer buffer;
  std::vector<int64_t> shape;
};

// A lowered, flattened function: what back ends compile. Arguments are passed in order as
// pointers to their first element.
struct LoweredFunc {
  std::string name;
  std::vector<FuncArg> args;
  Stmt body;
};

}  // namespace tessel
