// How the CPU schedules size their register tiles from the target's CPU description
// (target/cpu.h) instead of constants written for one machine: a tile keeps enough independent
// accumulators to hide the FMA latency, and no more than the vector register file holds beside the
// operands its inner step loads. The same rules give 8×32-float GEMM tiles (16 zmm accumulators)
// on AVX-512 and 6×16 (12 ymm) on AVX2.
//
//   int64_t lanes = float_lanes(target.cpu());                        // 8 on AVX2
//   int64_t acc = accumulator_budget(target.cpu(), 2, gemm_cap(cpu));  // 13 on AVX2: 16 - 2 - 1
#pragma once
#include <algorithm>
#include <cstdint>

#include "target/cpu.h"

namespace tessel::ops {

// float32 elements in one vector register.
inline int64_t float_lanes(const CpuDescription& cpu) { return cpu.lanes(32); }

// Vector registers needed for `floats` float32 values (rounded up).
inline int64_t float_vectors(const CpuDescription& cpu, int64_t floats) {
  return (floats + float_lanes(cpu) - 1) / float_lanes(cpu);
}

// Accumulator registers a register tile may use when each step of its inner loop also holds
// `operand_vectors` loaded vectors and one broadcast: at most `cap`, and never more than the
// registers left, so the tile does not spill.
int64_t accumulator_budget(const CpuDescription& cpu, int64_t operand_vectors, int64_t cap);

// The GEMM tile's cap: every FMA pipe busy twice over its latency (16 with two 4-cycle pipes). A
// taller tile loads fewer B vectors per FMA, but past this it only lengthens the unrolled body.
inline int64_t gemm_accumulator_cap(const CpuDescription& cpu) { return 2 * cpu.min_accumulators(); }

// Whether register tiles that do not divide their loop's extent (the last tile partial, peeled by
// loop partitioning) are worth it on `cpu`: with 16 vector registers the best tiles (6 rows × 2
// vectors for GEMM) seldom divide the layers' extents (1024, 56, 28, 14, 7); with 32, dividing
// tiles include good ones (8 × 2 vectors, 7 × 2), and the AVX-512 schedules stay as they were.
inline bool partial_register_tiles(const CpuDescription& cpu) { return cpu.vector_registers < 32; }

// The extent of a register tile over a loop of `extent` on `cpu`, at most `limit`: the largest
// divisor of `extent` where it uses three quarters of `limit` or partial tiles do not pay;
// otherwise as many as balance the fewest tiles of at most `limit` (7 -> 4 + 3, 14 -> 5 + 5 + 4,
// 28 -> 6 × 4 + 4), the last tile partial. Conv2d's output columns and the Winograd GEMM's tiles
// follow it, and their template spaces offer exactly these tiles (search/spaces/tile_choices.h).
// On AVX2 a 6 × 2-vector conv2d tile (12 accumulators) beats the 4-column divisor of OW 28, 56 and
// 112 (8, just the FMA latency): measured on Zen 5 under the AVX2 ceiling, 2 threads, C1-C12
// geomean vs oneDNN 0.97 -> 1.02 (C1-C6 5-16% faster), MobileNet-V2's stem 250-266 -> 123-175 us.
// The divisor was preferred while LLVM partially unrolled the loop around the tile for some CPU
// models (znver3), whose interleaved copies spilled; LLVM's partial unrolling is now the same for
// every CPU model (backends/llvm_cpu/cpu_target.cpp), and 6-column tiles compile without spills.
// Where the balanced tiles' last one is shorter than `latency_tile` (the fewest columns whose
// accumulators hide the FMA latency; a shorter tile waits on it, as long as a tile of
// `latency_tile` takes) and tiles one column smaller, still at least `latency_tile`, leave a last
// tile that waits less, those: 49 pixels -> 5 × 9 + 4 rather than 6 × 8 + 1, whose 1-column tile
// takes two thirds of a full one's time for a sixth of its work.
int64_t register_tile_size(int64_t extent, int64_t limit, int64_t latency_tile, const CpuDescription& cpu);

// The fewest columns of `column_floats` accumulated floats each that hide the FMA latency on
// `cpu`, counted in floats as accumulator budgets are (a column narrower than a vector takes one).
inline int64_t latency_columns(int64_t column_floats, const CpuDescription& cpu) {
  int64_t floats = std::max(column_floats, float_lanes(cpu));
  return (cpu.min_accumulators() * float_lanes(cpu) + floats - 1) / floats;
}

// Whether an FMA can take its broadcast operand from memory (AVX-512's embedded broadcast). Where it
// cannot (AVX2), every broadcast element is a load of its own beside the FMAs' loads.
inline bool fma_broadcast_operands(const CpuDescription& cpu) { return cpu.isa >= CpuIsa::AVX512; }

// Whether a window operator's register tile may also unroll the kernel width: the unrolled body
// reuses each input broadcast across columns and kernel columns, and LLVM keeps the kernel vectors
// of every kernel column live with them. That fits 32 vector registers (the AVX-512 conv2d schedule);
// with 16 (AVX2) the 12 accumulators spill every few FMAs, so the kernel width stays a loop
// outside the input-channel block, as in oneDNN's AVX2 direct convolution.
inline bool unrolled_window_fits(const CpuDescription& cpu) { return cpu.vector_registers >= 32; }

// The window operators' cap (convolutions, depthwise): 14, the tile their schedules were tuned
// with on the AVX-512 machine (7 columns × 2 vectors, 14 columns × 1), where the register file does
// not bind.
constexpr int64_t kWindowAccumulatorCap = 14;

// Most elements of the vectorized innermost loops of the schedules without a register tile (NCHW
// window ops, pooling, element-wise ops, layout transforms): 16 floats, one to four vector
// registers on each CPU ISA, far from filling any register file.
constexpr int64_t kRowTileColumns = 16;

}  // namespace tessel::ops
