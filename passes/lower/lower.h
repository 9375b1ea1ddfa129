// Lowering: from a schedule to the flat loop program the back ends compile, through the lowering
// pipeline of the target (passes/lower/pipeline.h; the CPU one is passes/lower/cpu_pipeline.cpp).
//
//   Schedule s = create_schedule({C});
//   ... primitives ...
//   LoweredFunc f = lower(s, {A, B, C}, "gemm");                       // for the host CPU
//   LoweredFunc g = lower(s, {A, B, C}, "gemm", Target::parse("llvm_cpu -isa=avx512"),
//                         {.extra_passes = {{"my_pass", nullptr}},
//                          .after_each_pass = [](Phase, const Pass& p, const Stmt& ir) { ... }});
//
// Contract with the back ends: the body of the result contains only For (Serial or Parallel),
// Store, Allocate (buffers with constant sizes, in scope "local" unless set_scope chose another),
// IfThenElse, Seq and LetStmt statements; its expressions contain no TensorRead or Reduce; vector
// code is explicit Ramp/Broadcast/vector Load and Store with at most 64 lanes. Parallel loops may
// contain Allocates, which are then per-iteration (thread-private) storage. Arguments are global
// buffers holding whole tensors, row-major, in the order given; all index arithmetic is int32 and
// never overflows for tensors below 2^31 elements. A Parallel loop is never nested inside another
// Parallel loop. Schedules using bind or pragma add ThreadBinding loops inside thread_extent or
// virtual_thread attributes, and pragma_* attributes (ir/attr.h); hand-built IR may add Evaluate
// statements of intrinsics (ir/intrinsic.h). A back end refuses what it cannot generate. Plugin
// passes share the duty: one added at the end of a phase leaves the IR in the form that phase
// promises (lower_pass.h), at the end of finalize this contract.
//
// Values follow ir/scalar_semantics.h, which every back end implements: integers wrap at their
// width; integer Div/Mod are floor division/modulo with x / -1 wrapping; division by zero is
// undefined; float operations round to their type (a*b+c may be contracted into an FMA); float
// Min(a, b) is `a < b ? a : b` and Max(a, b) is `a > b ? a : b`, so a NaN operand gives b.
#pragma once
#include <string>
#include <vector>

#include "ir/schedule.h"
#include "ir/stmt.h"
#include "passes/lower/pipeline.h"
#include "target/target.h"

namespace tessel {

// Lowers a schedule into a function over `args` (placeholders and outputs, in call order). A
// tensor handle the user created may be passed even if cache_write replaced its operation: the
// argument then holds what the schedule now computes for it. Throws UserError for schedules that
// are only found illegal here (a compute_at target that was split afterwards, attachment cycles,
// a stage read outside the loop it is computed at), for arguments that are not part of the
// schedule or are given twice, and for tensors read but neither computed nor passed.
LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name);

// What lowering can be asked for besides the target.
struct LowerOptions {
  // Plugin passes (kind "lower_pass") added to the target's pipeline, each at the end of its phase.
  std::vector<PassRequest> extra_passes;
  // Called after every pass with the IR it produced (tessel lower --print-after).
  PassObserver after_each_pass;
};

// Lowers for `target` through its pipeline (lowering_pipeline(target, options.extra_passes)); the
// overload above is this for the host CPU. Throws UserError as above, for a target kind without a
// pipeline, and for unknown plugin passes or bad parameters.
LoweredFunc lower(const Schedule& sch, const std::vector<Tensor>& args, const std::string& name,
                  const Target& target, const LowerOptions& options = {});

// The loop program before storage flattening (Realize/Provide/TensorRead, loop kinds as
// scheduled): what bound inference and schedule_ops produce, for inspection and tests.
Stmt schedule_to_loops(const Schedule& sch, const std::vector<Tensor>& args);

}  // namespace tessel
