// Intrinsics: the named operations a Call node performs, each declared once with its effect and
// its type rule (TVM's Op with its CallEffectKind). The pure math functions (exp, log, sqrt, ...)
// are entries like any other; so are the side-effecting ones that run as statements: `prefetch`
// (a cache hint) and `fill` (sets a run of buffer elements to a value). Later layers add theirs
// (GPU barriers, accelerator dependency tokens) with register_intrinsic; back ends lower the
// intrinsics they know and refuse the others with a UserError naming the intrinsic.
//
// What passes may do with a call follows from its effect:
//   Pure          a function of its arguments: may be evaluated any number of times, or dropped;
//   ReadsMemory   reads memory, like a Load: may be dropped when unused, not moved across writes;
//   WritesMemory  writes memory;  Opaque  any other side effect (a hint, a barrier, a token).
// Calls that write memory or have an opaque effect are statements: they appear only as the whole
// value of an Evaluate statement (every expression builder refuses them as an operand), and
// passes keep each such Evaluate, executed as often as before and in the same order.
//
// Address arguments: an intrinsic that works on memory takes the address of a buffer element as a
// scalar Load of that element (printed `&C[i]`); the element is not read. Before storage
// flattening it may be a TensorRead of the element, which flattening turns into that Load.
//
//   Stmt zero = make_evaluate(call("fill", {load(acc, 0), make_float(0.0), 16}));
//   register_intrinsic({"gpu.barrier", CallEffect::Opaque, "() -> int32", "block-wide barrier",
//                       [](const Intrinsic& self, const std::vector<Expr>& args) {
//                         check_arg_count(self, args, 0);
//                         return DataType::int32();
//                       }, {}, nullptr});
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace tessel {

enum class CallEffect : uint8_t { Pure, ReadsMemory, WritesMemory, Opaque };
const char* call_effect_name(CallEffect effect);  // "pure", "reads memory", ...

struct Intrinsic {
  std::string name;
  CallEffect effect = CallEffect::Pure;
  std::string signature;    // "(float x) -> float", shown in messages
  std::string description;  // one line
  // Checks the arguments and returns the result type; throws UserError naming the intrinsic and
  // its signature for a wrong count or type (the helpers below word it).
  std::function<DataType(const Intrinsic& self, const std::vector<Expr>& args)> type_rule;
  // The positions of address arguments (see above).
  std::vector<size_t> address_args;
  // For pure math of one float argument: the value at x in the precision of type t. Both
  // interpreters and constant folding evaluate with it. Null for every other intrinsic.
  double (*math)(double x, DataType t) = nullptr;

  // Whether calls must be statements (Evaluate values), as WritesMemory and Opaque calls are.
  bool is_statement() const { return effect == CallEffect::WritesMemory || effect == CallEffect::Opaque; }
  bool is_address_arg(size_t i) const;
};

// Adds an intrinsic; throws UserError if the name is taken or it has no type rule.
const Intrinsic& register_intrinsic(Intrinsic intrinsic);
// The intrinsic named `name`; throws UserError listing the known ones.
const Intrinsic& intrinsic(const std::string& name);
std::vector<std::string> intrinsic_names();

// Builds a call, checking the arguments with the intrinsic's type rule.
Expr make_call(const Intrinsic& intrinsic, std::vector<Expr> args);

// The intrinsic e calls if it is a statement call (see above), else nullptr.
const Intrinsic* statement_call(const Expr& e);
// Throws UserError if e is a statement call, saying it is used as `where` ("an operand of +").
void check_not_statement_call(const Expr& e, const char* where);

// The prefetch intrinsics ("prefetch", "prefetch_l2"), and the locality back ends emit each with,
// as llvm.prefetch and __builtin_prefetch take it (3: into every cache level, 2: into L2 and
// outward); InternalError for another name.
bool is_prefetch(const std::string& intrinsic_name);
int prefetch_locality(const std::string& intrinsic_name);

// ---- helpers for type rules --------------------------------------------------------------------
// Each throws UserError "intrinsic 'NAME' <signature>: <what is wrong>".
void check_arg_count(const Intrinsic& self, const std::vector<Expr>& args, size_t count);
// args[i] is a scalar Load; returns the element type of its buffer.
DataType check_address_arg(const Intrinsic& self, const std::vector<Expr>& args, size_t i);
// args[i] is a scalar integer.
void check_int_arg(const Intrinsic& self, const std::vector<Expr>& args, size_t i);
[[noreturn]] void intrinsic_arg_error(const Intrinsic& self, const std::string& what);

}  // namespace tessel
