// The register-tiled schedule shared by the windowed reductions (convolutions, depthwise
// convolution, pooling), one function taking a configuration (AutoTVM style): the reduction runs
// in a local accumulator covering a register tile of rows × columns output points (× the channel
// block in blocked layouts), computed at the column tiles of the output, with channel × row-tile
// pairs spread over the threads. As in TVM's x86 conv2d_NCHWc schedule. Each operator's default
// schedule is this function with its fallback configuration for the target; the tuning templates
// (search/spaces/window_template.h) map their knobs to the same configuration.
#pragma once
#include <vector>

#include "ir/schedule.h"
#include "target/cpu.h"

namespace tessel::ops {

// Where the "pad" stage of a window op runs. Root: the whole input first. PerRow: the input rows
// each output row tile reads, right before that tile (they stay in L1). Inline: nowhere, the window
// reads the input through the pad's bounds test, which loop partitioning removes from all but the
// border tiles; for ops that read each input element a few times only (depthwise), any pad copy
// costs as much as the op.
enum class PadPlacement { Root, PerRow, Inline };

struct WindowConfig {
  int64_t rows = 1;                // output rows per register tile; need not divide OH
  int64_t columns = 1;             // output columns per register tile; need not divide OW
  std::vector<int> reduce_order;   // the accumulator's reduction axes (by index), outermost first
  std::vector<int> unrolled;       // reduction axes (by index) to unroll, e.g. the kernel width
  PadPlacement pad = PadPlacement::Root;
  // The parallel loop's order: false, channel blocks outside row tiles (each thread sweeps the
  // input once per channel block); true, row tiles outside channel blocks, so the input rows a
  // tile reads stay in cache while every channel block uses them (layers whose input outweighs
  // their kernel: ops::rows_outer_pays).
  bool rows_outer = false;
  // Output channel blocks per register tile (blocked layouts; must divide the blocks): with a
  // block of one vector, each broadcast input element then feeds that many FMAs. Unrolled in the
  // tile, outside its columns.
  int64_t channel_blocks = 1;
};

// `out` is [N, C, OH, OW] or [N, C, OH, OW, c]; `acc` computes its window reduction (a cache_write
// of out, or the sum stage of an average) and is attached at out's column tiles. A "pad" stage
// read by acc is placed as config.pad says. Columns (4-D) or the channel block (5-D) are
// vectorized. Throws UserError if a factor is not positive, channel_blocks does not divide the
// blocks, or an axis index is out of range.
void schedule_window(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config);

// Places the "pad" stage `consumer` reads, if any: at the root (in parallel over channels,
// vectorized over the channel block of blocked layouts) or inline. PerRow needs the output's row
// loop: schedule_window places it.
void schedule_pad(Schedule& s, const Tensor& consumer, PadPlacement where);

// Output columns per register tile for a [.., OW, block] accumulator: a divisor of OW up to
// `limit` (the accumulators are columns × the block's vector registers).
int64_t pick_reg_n(int64_t ow, int64_t limit);

// Output columns per register tile on `cpu`, at most `limit`, each column `column_vectors` vector
// registers wide. pick_reg_n's divisor of OW where it has enough accumulators to hide the FMA
// latency (cpu.min_accumulators()), uses three quarters of `limit`, or partial tiles do not pay
// (ops/cpu_tiles.h); otherwise (OW = 7 or 14 under a limit of 6 columns of 2 vectors) as many
// columns as balance the fewest tiles of at most `limit` (7 -> 4 + 3, 14 -> 5 + 5 + 4), the last
// tile partial. A divisor is preferred to fuller partial tiles because a 6 × 2-vector tile leaves
// AVX2 no spare register: LLVM spills once it loads the next step's operands early or keeps an
// input broadcast for the next kernel column (stride-2 windows). Measured on Zen 3, 2 threads: the
// 4-column divisor ran MobileNet-V2's stem (OW 112) in 129 us instead of 216, ResNet-18's in 1358
// instead of 1518, and the 1x1 convolutions of OW 112, 56 and 28 5-19% faster.
int64_t register_tile_columns(int64_t ow, int64_t limit, int64_t column_vectors, const CpuDescription& cpu);

}  // namespace tessel::ops
