// The register-tiled schedule shared by the windowed reductions (convolutions, depthwise
// convolution, pooling): the reduction runs in a local accumulator covering reg_n output columns
// (× the channel block in blocked layouts), computed at the column tiles of the output, with
// channel×row pairs spread over the threads. As in TVM's x86 conv2d_NCHWc schedule.
#pragma once
#include <vector>

#include "ir/schedule.h"

namespace tessel::ops {

// Where the "pad" stage of a window op runs. Root: the whole input first. PerRow: the input rows
// each output row reads, right before that row (they stay in L1). Inline: nowhere, the window
// reads the input through the pad's bounds test, which loop partitioning removes from all but the
// border tiles; for ops that read each input element a few times only (depthwise), any pad copy
// costs as much as the op.
enum class PadPlacement { Root, PerRow, Inline };

struct WindowTile {
  int64_t reg_n = 1;              // output columns per register tile; must divide OW
  std::vector<int> reduce_order;  // the accumulator's reduction axes (by index), outermost first
  int unrolled_reduce = -1;       // index of a reduction axis to unroll (the kernel width), or -1
  PadPlacement pad = PadPlacement::Root;
};

// `out` is [N, C, OH, OW] or [N, C, OH, OW, c]; `acc` computes its window reduction (a cache_write
// of out, or the sum stage of an average) and is attached at out's column tiles. A "pad" stage
// read by acc is placed as tile.pad says.
void schedule_window_tiles(Schedule& s, const Tensor& out, const Tensor& acc, const WindowTile& tile);

// Computes the "pad" stage `consumer` reads, if any, at the root, in parallel over channels (and
// vectorized over the channel block of blocked layouts).
void schedule_pad_root(Schedule& s, const Tensor& consumer);

// Places the "pad" stage `consumer` reads, if any, at the root or inline (PerRow needs the output's
// row loop: schedule_window_tiles places it).
void schedule_pad(Schedule& s, const Tensor& consumer, PadPlacement where);

// Output columns per register tile for a [.., OW, block] accumulator: a divisor of OW up to
// `limit` (the accumulators are reg_n vector registers).
int64_t pick_reg_n(int64_t ow, int64_t limit);

}  // namespace tessel::ops
