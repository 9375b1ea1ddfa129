// Translation of a LoweredFunc into LLVM IR (internal to the LLVM CPU back end).
//
// The generated module holds the typed entry `void <name>(T0* noalias, T1* noalias, ...)`, the
// packed entry `void <name>_packed(void** args)` that CompiledFunction::call uses, and one pair of
// internal functions per parallel loop (its body, and the task the thread pool calls).
//
// CodeGen is split by concept over several files: codegen_function.cpp (entries, scopes,
// allocas), codegen_expr.cpp (arithmetic, logic, casts, let), codegen_intrinsic.cpp (calls and
// Evaluate: math, prefetch, fill), codegen_index.cpp (floor division and the sign facts that make
// it cheap), codegen_memory.cpp (loads, stores, vectors, allocations), codegen_stmt.cpp (loops,
// branches, lets, attributes), codegen_parallel.cpp (outlining).
//
// Scalar semantics are those of ir/scalar_semantics.h: integer Add/Sub/Mul wrap (no `nsw`), except
// in index arithmetic (load and store indices, loop bounds, allocation sizes, and the if and
// select conditions that read no memory: the guards of the iteration domain), which lowering
// guarantees never overflows and which is marked `nsw` so LLVM can widen and vectorize it; float
// Min/Max are fcmp olt/ogt + select (one minps/maxps), float Mod uses an fma.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "backends/llvm_cpu/cpu_target.h"
#include "ir/stmt.h"
#include "ir/visitor.h"

namespace tessel::llvm_cpu {

struct CodegenOptions {
  // Beyond the always-on contraction of a*b+c into FMAs: reassociation, no NaN/Inf/signed-zero
  // guarantees, approximate functions. Lets LLVM vectorize float reductions; changes rounding.
  bool fast_math = false;
  LlvmCpuTarget target;  // CPU, features and vector width every generated function is marked with
};

// Builds the module of one lowered function in `context`. Throws UserError for IR the back end
// cannot generate (unlowered nodes, unknown intrinsics, undefined variables).
// `layout` is the target's data layout (from its TargetMachine).
std::unique_ptr<llvm::Module> generate_module(const LoweredFunc& func, llvm::LLVMContext& context,
                                              const llvm::DataLayout& layout, const CodegenOptions& options);

// The name of the packed entry of a function named `name`.
std::string packed_entry_name(const std::string& name);

// The LLVM type of values of type t (bool is i1), and of their storage in memory (bool is i8).
llvm::Type* value_type(llvm::LLVMContext& context, DataType t);
llvm::Type* memory_type(llvm::LLVMContext& context, DataType t);

class CodeGen : public IRVisitor {
 public:
  CodeGen(llvm::Module& module, const CodegenOptions& options);
  void generate(const LoweredFunc& func);

 private:
  // ---- expressions ------------------------------------------------------------------------------
  llvm::Value* emit(const Expr& e);
#define TESSEL_DECLARE_VISIT(T) void visit_node(const T* op) override;
  TESSEL_BINARY_NODES(TESSEL_DECLARE_VISIT)
  TESSEL_OTHER_EXPR_NODES(TESSEL_DECLARE_VISIT)
  TESSEL_STMT_NODES(TESSEL_DECLARE_VISIT)
#undef TESSEL_DECLARE_VISIT
  llvm::Value* emit_binary(NodeKind kind, const Expr& a, const Expr& b);
  llvm::Value* emit_arithmetic(NodeKind kind, DataType t, llvm::Value* x, llvm::Value* y);
  llvm::Value* emit_compare(NodeKind kind, DataType operand_type, llvm::Value* x, llvm::Value* y);
  llvm::Value* emit_cast(llvm::Value* v, DataType from, DataType to);
  llvm::Value* emit_libm_lanewise(const std::string& scalar_name, DataType t, llvm::Value* x);
  llvm::Value* splat_to(llvm::Value* v, int lanes);
  // e as index arithmetic (see above): its integer operations are marked nsw.
  llvm::Value* emit_index(const Expr& e);
  // A scalar index e as the i64 element offset of an address (codegen_index.cpp).
  llvm::Value* emit_offset(const Expr& e);
  // An if or select condition: index arithmetic unless it reads memory (then it is data).
  llvm::Value* emit_condition(const Expr& cond);

  // ---- intrinsics with effects ------------------------------------------------------------------
  void emit_prefetch(const Call* op);
  void emit_fill(const Call* op);
  // The pointer to the element an address argument (a scalar Load) names.
  llvm::Value* address_of(const Expr& address);
  llvm::Value* lookup_var(const VarNode* var) const;

  // ---- integer index arithmetic ---------------------------------------------------------------
  llvm::Value* emit_floor_div_mod(NodeKind kind, const Expr& a, const Expr& b);
  llvm::Value* floor_div_mod_by(bool is_div, llvm::Value* x, llvm::Value* y, bool positive_divisor);
  bool known_nonneg(const Expr& e) const;
  bool known_positive_constant(const Expr& e) const;

  // ---- memory -----------------------------------------------------------------------------------
  llvm::Value* buffer_base(const Buffer& buffer) const;
  llvm::Value* element_pointer(const Buffer& buffer, llvm::Value* index);
  llvm::Value* vector_pointer(const Buffer& buffer, const Expr& first_index, int lanes);
  llvm::Value* emit_scalarized_gather(const Buffer& buffer, const Ramp* index, DataType t);
  llvm::Value* emit_heap_allocate(const Allocate* op, llvm::Type* element);

  // ---- statements -------------------------------------------------------------------------------
  void emit(const Stmt& s);
  void emit_serial_for(const For* op);
  // for (i = lo; i < hi; ++i) body(i), named after `name`; returns the back edge (for metadata).
  llvm::BranchInst* emit_loop(const std::string& name, llvm::Value* lo, llvm::Value* hi,
                              const std::function<void(llvm::Value* i)>& body);
  void emit_parallel_for(const For* op);
  llvm::Function* outline_parallel_body(const For* op, const std::vector<const VarNode*>& vars,
                                        const std::vector<const BufferNode*>& buffers,
                                        const std::vector<llvm::Type*>& field_types);
  llvm::Function* make_parallel_task(llvm::Function* body, llvm::StructType* closure_type);
  void bind_var(const Var& var, llvm::Value* value, bool nonneg);
  // Ends a binding's scope. A variable may be bound again later (loop partitioning repeats a
  // loop), and a stale value left behind would look like a free variable to a parallel loop.
  void unbind_var(const Var& var);

  // ---- functions --------------------------------------------------------------------------------
  llvm::Function* declare_entry(const LoweredFunc& func);
  void emit_packed_entry(const LoweredFunc& func, llvm::Function* entry);
  llvm::AllocaInst* entry_alloca(llvm::Type* type, uint64_t count, uint64_t align);
  void begin_function(llvm::Function* fn);
  std::string fresh_name(const std::string& suffix);

  // The per-function state; outlining a parallel body saves it and starts afresh.
  struct FunctionState {
    llvm::Function* function = nullptr;
    llvm::BasicBlock* block = nullptr;
    std::unordered_map<const VarNode*, llvm::Value*> vars;
    std::unordered_map<const BufferNode*, llvm::Value*> buffers;
    bool in_parallel = false;
  };
  FunctionState save_state() const;
  void restore_state(FunctionState state);

  llvm::LLVMContext& context_;
  llvm::Module& module_;
  llvm::IRBuilder<> builder_;
  CodegenOptions options_;
  std::string func_name_;
  int name_counter_ = 0;
  FunctionState state_;
  std::unordered_set<const VarNode*> nonneg_vars_;
  llvm::Value* value_ = nullptr;  // the result of the expression visited last
  bool index_context_ = false;    // emitting index arithmetic (see emit_index)
};

}  // namespace tessel::llvm_cpu
