// Matrix multiply, C[M,N] = A[M,K]·B[K,N], and dense, Y[M,N] = X[M,K]·W[N,K]ᵀ, with their default
// CPU schedule (TVM's x86 GEMM recipe).
//
// Both repack the right-hand matrix inside the computation into panels [ceil(N/bn)][K][bn] (a
// stage tagged "pack"), so the inner loop reads bn consecutive floats per k; the packing runs in
// the same kernel and is part of its cost. The schedule keeps a rows × bn block of C in registers
// (a cache_write stage) while the k loop runs outside it, vectorizes the bn columns, and
// parallelizes over column panels so each thread's panel stays in its L2.
#pragma once
#include "ir/schedule.h"

namespace tessel::ops {

// bn = 0 picks the panel width from N (32 when it divides N). Tagged "gemm".
Tensor gemm(const Tensor& a, const Tensor& b, int64_t bn = 0, const std::string& name = "C");
// bn as for gemm. Tagged "dense".
Tensor dense(const Tensor& x, const Tensor& w, int64_t bn = 0, const std::string& name = "Y");

struct GemmTiles {
  int64_t rows = 0;      // rows of the register tile; 0 picks a divisor of M up to 8
  int64_t k_unroll = 0;  // k iterations unrolled; 0 picks a divisor of K up to 4
};

// The default CPU schedule of a gemm or dense output.
Schedule schedule_gemm_cpu(const Tensor& output, const GemmTiles& tiles = {});

}  // namespace tessel::ops
