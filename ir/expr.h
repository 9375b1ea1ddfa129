// Expressions: the scalar and vector arithmetic shared by tensor expressions and the loop IR.
//
// Integer Div and Mod are floor division and the matching non-negative modulo (as in TVM's
// floordiv/floormod), which keeps index arithmetic exact for negative values and lets the
// simplifier reason about it; ir/scalar_semantics.h gives the value of every operation (wrapping,
// division by -1 or 0, NaN in min/max). A few node kinds belong to one level only: TensorRead and Reduce
// appear in tensor expressions before lowering; Load, Ramp and Broadcast after storage flattening.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/memory_scope.h"
#include "ir/node.h"
#include "ir/type.h"

namespace tessel {

struct ExprNode : Node {
  ExprNode(NodeKind k, DataType t) : Node(k), type(t) {}
  const DataType type;
};

class Expr : public Handle<ExprNode> {
 public:
  using Handle::Handle;
  Expr() = default;
  Expr(int value);      // int32 constant
  Expr(int64_t value);  // int32 constant if it fits, int64 otherwise
  Expr(double value);   // float32 constant
  DataType type() const { return get()->type; }
};

// ---- leaves ------------------------------------------------------------------------------------
struct IntImm : ExprNode {
  static constexpr NodeKind kKind = NodeKind::IntImm;
  IntImm(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  const int64_t value;
};

struct FloatImm : ExprNode {
  static constexpr NodeKind kKind = NodeKind::FloatImm;
  FloatImm(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  const double value;
};

struct VarNode : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Var;
  VarNode(DataType t, std::string n) : ExprNode(kKind, t), name(std::move(n)) {}
  const std::string name;
};

// A variable. Two Vars are the same variable only if they share a node; names are for printing.
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType type = DataType::int32());
  explicit Var(const Expr& e);  // e must be a Var node
  const VarNode* operator->() const { return static_cast<const VarNode*>(get()); }
  const std::string& name() const { return (*this)->name; }
};

// The half-open interval [min, min + extent).
struct Range {
  Expr min, extent;
};

enum class IterKind : uint8_t {
  DataParallel,  // a spatial axis of a compute: each point is independent
  Reduce,        // a reduction axis: points are combined by the reduction's combiner
};

struct IterVarNode {
  Var var;
  Range dom;
  IterKind kind;
};

// An iteration variable: a Var with the domain it ranges over. Compute axes, reduction axes and
// the loops a schedule creates (split, fuse) are all IterVars.
class IterVar : public Handle<IterVarNode> {
 public:
  using Handle::Handle;
  IterVar(Var var, Range dom, IterKind kind);
  const Var& var() const { return get()->var; }
  const std::string& name() const { return get()->var.name(); }
  bool is_reduce() const { return get()->kind == IterKind::Reduce; }
};

struct BufferNode {
  std::string name;
  DataType dtype;
  MemoryScope scope;
};

// A flat, typed region of memory: a function argument (scope "global") or a temporary (usually
// "local"; see ir/memory_scope.h). Loads and stores index it with one element offset.
class Buffer : public Handle<BufferNode> {
 public:
  using Handle::Handle;
  Buffer(std::string name, DataType dtype, MemoryScope scope);
  const std::string& name() const { return get()->name; }
  DataType dtype() const { return get()->dtype; }
  const MemoryScope& scope() const { return get()->scope; }
};

// ---- arithmetic and logic ----------------------------------------------------------------------
template <NodeKind K>
struct BinaryNode : ExprNode {
  static constexpr NodeKind kKind = K;
  BinaryNode(DataType t, Expr a_, Expr b_) : ExprNode(K, t), a(std::move(a_)), b(std::move(b_)) {}
  const Expr a, b;
};
using Add = BinaryNode<NodeKind::Add>;
using Sub = BinaryNode<NodeKind::Sub>;
using Mul = BinaryNode<NodeKind::Mul>;
using Div = BinaryNode<NodeKind::Div>;
using Mod = BinaryNode<NodeKind::Mod>;
using Min = BinaryNode<NodeKind::Min>;
using Max = BinaryNode<NodeKind::Max>;
using EQ = BinaryNode<NodeKind::EQ>;
using NE = BinaryNode<NodeKind::NE>;
using LT = BinaryNode<NodeKind::LT>;
using LE = BinaryNode<NodeKind::LE>;
using GT = BinaryNode<NodeKind::GT>;
using GE = BinaryNode<NodeKind::GE>;
using And = BinaryNode<NodeKind::And>;
using Or = BinaryNode<NodeKind::Or>;

struct Not : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Not;
  Not(DataType t, Expr a_) : ExprNode(kKind, t), a(std::move(a_)) {}
  const Expr a;
};

// cond ? t : f, evaluating both sides (they must be safe to evaluate).
struct Select : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Select;
  Select(DataType t, Expr c, Expr tv, Expr fv)
      : ExprNode(kKind, t), cond(std::move(c)), true_value(std::move(tv)), false_value(std::move(fv)) {}
  const Expr cond, true_value, false_value;
};

struct Cast : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Cast;
  Cast(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  const Expr value;
};

struct Intrinsic;

// A call of an intrinsic (ir/intrinsic.h): pure math such as exp, or an operation with effects
// (prefetch, fill) that then stands alone as an Evaluate statement. Built by call()/make_call(),
// which check the arguments with the intrinsic's type rule.
struct Call : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Call;
  Call(DataType t, const Intrinsic& i, std::vector<Expr> a);
  const Intrinsic* const intrinsic;  // never null
  const std::string name;            // the intrinsic's name
  const std::vector<Expr> args;
};

struct Let : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Let;
  Let(Var v, Expr val, Expr b) : ExprNode(kKind, b.type()), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  const Var var;
  const Expr value, body;
};

// ---- tensor-expression level -------------------------------------------------------------------
struct OperationNode;

// Reads one element of a tensor (the output of an operation) at a multi-dimensional index.
struct TensorRead : ExprNode {
  static constexpr NodeKind kKind = NodeKind::TensorRead;
  TensorRead(DataType t, std::shared_ptr<const OperationNode> o, std::vector<Expr> idx)
      : ExprNode(kKind, t), op(std::move(o)), indices(std::move(idx)) {}
  const std::shared_ptr<const OperationNode> op;
  const std::vector<Expr> indices;
};

enum class ReduceOp : uint8_t { Sum, Max, Min };

// combiner over `axes` of `source`, counting only points where `condition` holds, starting from
// `init` (an expression of the compute's axes; undefined: the combiner's identity). Appears only as
// the whole body of a compute.
struct Reduce : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Reduce;
  Reduce(DataType t, ReduceOp c, Expr s, std::vector<IterVar> ax, Expr cond, Expr start = Expr())
      : ExprNode(kKind, t),
        combiner(c),
        source(std::move(s)),
        axes(std::move(ax)),
        condition(std::move(cond)),
        init(std::move(start)) {}
  const ReduceOp combiner;
  const Expr source;
  const std::vector<IterVar> axes;
  const Expr condition;
  const Expr init;
};

// ---- loop-IR level -----------------------------------------------------------------------------
// Reads buffer[index]; a Ramp index with a vector type reads consecutive or strided lanes.
struct Load : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Load;
  Load(DataType t, Buffer b, Expr i) : ExprNode(kKind, t), buffer(std::move(b)), index(std::move(i)) {}
  const Buffer buffer;
  const Expr index;
};

// The vector base, base + stride, ..., base + (lanes-1)*stride.
struct Ramp : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Ramp;
  Ramp(Expr b, Expr s, int l)
      : ExprNode(kKind, b.type().with_lanes(l)), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  const Expr base, stride;
  const int lanes;
};

// A scalar repeated in every lane.
struct Broadcast : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Broadcast;
  Broadcast(Expr v, int l) : ExprNode(kKind, v.type().with_lanes(l)), value(std::move(v)), lanes(l) {}
  const Expr value;
  const int lanes;
};

// ---- construction ------------------------------------------------------------------------------
// The builders check and reconcile operand types: a constant takes the other side's type, int32
// widens to int64; any other mismatch is an error naming both types.
Expr make_int(int64_t value, DataType type = DataType::int32());
Expr make_float(double value, DataType type = DataType::float32());
Expr make_zero(DataType type);
Expr make_binary(NodeKind kind, Expr a, Expr b);
Expr cast(DataType type, Expr value);
Expr select(Expr cond, Expr true_value, Expr false_value);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr eq(Expr a, Expr b);
Expr ne(Expr a, Expr b);
Expr call(const std::string& name, std::vector<Expr> args);  // an intrinsic by name (ir/intrinsic.h)
Expr ramp(Expr base, Expr stride, int lanes);
Expr broadcast(Expr value, int lanes);
Expr load(Buffer buffer, Expr index);  // lanes from the index

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // floor division for integers
Expr operator%(Expr a, Expr b);  // floor modulo for integers
Expr operator-(Expr a);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

// The constant value of an integer immediate, if e is one.
const int64_t* as_const_int(const Expr& e);
bool is_const_int(const Expr& e, int64_t value);

}  // namespace tessel
