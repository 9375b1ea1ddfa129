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

// Where the "pad" stage of a window op runs. Root: the whole input first, split over the threads
// by channels. PerRow: the input rows each output row tile reads, right before that tile (they
// stay in L1). PerThread: each thread pads, before its share of the output, the input its share
// reads; no thread then reads padded rows another thread wrote, which on CPUs whose cores share no
// cache (two vCPUs on different dies) cost every call a trip of the padded input between them.
// Inline: nowhere, the window reads the input through the pad's bounds test, which loop
// partitioning removes from all but the border tiles; for ops that read each input element a few
// times only (depthwise), any pad copy costs as much as the op.
enum class PadPlacement { Root, PerRow, PerThread, Inline };

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
  // The threads a pad per thread (PerThread) or row_shares splits the parallel loop into equal
  // shares for.
  int64_t threads = 1;
  // Blocks of the first reduction axis (conv2d's input-channel blocks) per reduction chunk; 0: no
  // chunks. Without chunks each register tile runs the whole reduction, re-reading the output
  // block's whole kernel slice, which comes from L2 once it outgrows L1 beside the input. With
  // them, the accumulator spans the channel block's whole output (in memory, in L1) and each chunk
  // runs over every register tile before the next, so a chunk's kernel slice is read from L2 once
  // and then from L1. Blocked layouts only. The parallel loop is then the channel blocks, or with
  // rows_outer on several threads one share of the rows per thread (as row_shares) × the channel
  // blocks (a pad per row or thread does not apply: the pad runs at the root). Ignored for a
  // stage computed in another's loop (a fused block's producers and output).
  int64_t reduce_chunk = 0;
  // Bytes of a 1x1 kernel to prefetch ahead of its reads, in the reduction loop that walks it in
  // memory order (ops/weight_prefetch.h); 0: none. conv2d_nchwc's schedule applies it (its
  // fallback takes the target's CpuDescription::prefetch_bytes), and while it is on streams a k×k
  // kernel into L2 a register tile's slice ahead; fused blocks, whose small kernels stay in cache,
  // and the other window ops ignore it.
  int64_t prefetch_bytes = 0;
  // On several threads (`threads` > 1), the output rows split into one share per thread, the
  // parallel loop, with the channel blocks and then the row tiles inside it: each thread writes
  // whole rows of every channel, where a model's 1x1 layers around it (rows outside channels,
  // ops::rows_outer_pays) read and write the same rows on the same core. A line one core wrote
  // and the other then read costs the next write to it a trip between the cores (MobileNet-V2's
  // depthwise, ops::depthwise_row_shares_pay). For the pad inline or at the root only.
  bool row_shares = false;
  // Lanes of the channel block one register tile covers (blocked layouts); 0, or the block or
  // more: the whole block. A block of several vectors then runs one vector at a time, a loop
  // outside the tile's columns, so that the tile holds more columns. With 16 registers, a
  // depthwise tile over a 16-channel block (two AVX2 vectors) beside the 6 kernel vectors of a
  // 3-wide window has room for one 7x7 column (2 accumulators: the FMA latency exposed), over one
  // vector for 7 columns (ops::depthwise_fallback_config). Not with reduce_chunk.
  int64_t block_lanes = 0;
};

// `out` is [N, C, OH, OW] or [N, C, OH, OW, c]; `acc` computes its window reduction (a cache_write
// of out, or the sum stage of an average) and is attached at out's column tiles. A "pad" stage
// read by acc is placed as config.pad says. Columns (4-D) or the channel block (5-D) are
// vectorized. Throws UserError if a factor is not positive, channel_blocks does not divide the
// blocks, an axis index is out of range, or reduce_chunk is negative or set for an unblocked layout.
void schedule_window(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config);

// The loops of an output tiled for a fused block: the tiles of rows the threads share, and in each
// the loop over its register tiles' rows (outside the channel blocks), which runs in order.
struct BlockLoops {
  IterVar tiles;
  IterVar rows;
};

// schedule_window with the output's rows split into tiles of `tile_rows`, the outermost loop and
// the one the threads share, and the rows outside the channel blocks in each: the producers of a
// fused block are computed at its rows and stored at its tiles (ops/block_schedule.h). A pad per
// row or thread becomes inline. Throws UserError as schedule_window does, or if tile_rows is not
// positive.
BlockLoops schedule_window_tiled(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config,
                                 int64_t tile_rows);

// schedule_window with the output's channel blocks split into `shares` equal shares, the
// outermost loop and the one the threads share; returns it. The producers of a fused block split
// by channels are computed at it (ops/conv2d_shares.h). A pad per row or thread becomes inline.
// Throws UserError as schedule_window does, or if the shares of register tiles do not divide the
// channel blocks.
IterVar schedule_window_shares(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config,
                               int64_t shares);

// schedule_window for `out` computed at loop `at` of `parent`: the same register tiles, in that
// loop's thread; a pad per row or thread becomes inline.
void schedule_window_at(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config,
                        const Stage& parent, const IterVar& at);

// Places the "pad" stage `consumer` reads, if any: at the root (in parallel over channels,
// vectorized over the channel block of blocked layouts) or inline. PerRow needs the output's row
// loop: schedule_window places it.
void schedule_pad(Schedule& s, const Tensor& consumer, PadPlacement where);

// Output columns per register tile for a [.., OW, block] accumulator: a divisor of OW up to
// `limit` (the accumulators are columns × the block's vector registers).
int64_t pick_reg_n(int64_t ow, int64_t limit);

}  // namespace tessel::ops
