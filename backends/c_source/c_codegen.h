// C code generation from a lowered function: readable GNU C11 (C99 plus statement expressions and
// aligned_alloc) that the "c_source" back end compiles with the system C compiler.
//
// The generated file defines
//   void NAME(T0* restrict A, T1* restrict B, ...);   // LoweredFunc::args order; must not overlap
//   void NAME_packed(void* const* args);               // the same, from an array of data pointers
// Parallel loops become `#pragma omp parallel for`; vector statements (Ramp/Broadcast/Load/Store
// with lanes > 1) become per-lane loops under `#pragma omp simd`; integer Div/Mod call floor
// helpers (floordiv_i32, ...); local buffers live on the stack up to 32 KiB, on the heap above.
// The scalar semantics are ir/scalar_semantics.h: the file is compiled with -fwrapv so integers
// wrap, the helpers handle x / -1, float min/max are `a < b ? a : b` (NaN gives b), float modulo
// uses fma. prefetch becomes __builtin_prefetch, fill a loop; pragmas become comments.
#pragma once
#include <string>

#include "ir/stmt.h"

namespace tessel::c_source {

// The C translation unit; throws UserError for IR outside the lowered-IR contract (Provide,
// Realize, TensorRead, Reduce, a local buffer of non-constant size, an unbound variable) and for
// what CPU back ends refuse (backends/cpu_contract.h).
std::string generate_c(const LoweredFunc& func);

// The C identifier of the function's symbol (its name with invalid characters replaced).
std::string c_function_name(const LoweredFunc& func);

}  // namespace tessel::c_source
