// Blocked-layout conv2d and its CPU schedule (ops/conv2d_nchwc.h).
#include "ops/conv2d_nchwc.h"

#include <algorithm>

#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/pad.h"
#include "ops/tiling.h"
#include "ops/weight_prefetch.h"
#include "ops/window_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

void check_shapes(const Tensor& data, const Tensor& kernel, int64_t groups) {
  if (data.ndim() != 5 || kernel.ndim() != 6)
    user_error("conv2d_nchwc: data must be 5-D (NCHWc) and kernel 6-D (OIHWio); got ", data.ndim(), "-D and ",
               kernel.ndim(), "-D. Convert with nchw_to_nchwc and oihw_to_oihwio");
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  if (d[4] != k[4])
    user_error("conv2d_nchwc: the data channel block ", d[4], " differs from the kernel input block ", k[4]);
  if (d[1] % groups != 0 || k[0] % groups != 0)
    user_error("conv2d_nchwc: ", groups, " groups must divide the input channel blocks (", d[1],
               ") and output channel blocks (", k[0], "); use smaller blocks");
  if (k[1] * groups != d[1])
    user_error("conv2d_nchwc: the kernel has ", k[1], " input channel blocks per group but the data has ", d[1],
               " blocks for ", groups, " groups");
}

WindowOperands conv_operands(const Tensor& output) { return window_operands(output, "conv2d_nchwc"); }

// Multiply-adds of the convolution behind `output` per element of its (padded) input.
int64_t macs_per_input_element(const Tensor& output) {
  WindowOperands c = conv_operands(output);
  const auto& k = c.kernel.shape();  // [ocb, icc, kh, kw, ib, ob]
  return tensor_elements(c.stage) * k[1] * k[2] * k[3] * k[4] / tensor_elements(c.data);
}

// Below this many multiply-adds per input element, the convolution reads its input through the
// pad's bounds test instead of a padded copy. Measured on AVX2 (Zen 3), 1 thread: MobileNet-V2's
// stem (3 channels, 3x3, stride 2, 32 outputs: 70 per element) ran 20-35% faster inline, its copy
// of 3-channel pixels costing about as much as the convolution; ResNet-18's C4 (268) and C1 (742)
// ran 3-8% faster with the copy, whose border-free loops outweigh it.
constexpr int64_t kInlinePadMacsPerElement = 128;

// Most vector registers one column of a register tile spans when it groups output channel blocks:
// 3 columns of 3 vectors leave LLVM three registers beside the 9 accumulators, 3 kernel vectors and
// the broadcast to load the next step early. Measured on AVX2 (Zen 3), 2 threads, MobileNet-V2's
// 24-channel 1x1 layers at 56x56: 3 x 3 ran 1.02-1.17x oneDNN, 3 x 4 (16 registers) 0.85-0.98x,
// 3 x 2 0.82-0.88x and the 8 x 1-vector tile before 0.69-0.92x.
constexpr int64_t kMaxColumnVectors = 3;

// On several threads, row tiles run outside channel blocks while the kernel is at most this many
// times the input (ops::rows_outer_pays). Measured on Zen 5, 2 vCPUs sharing no cache, medians of
// sets of 4-8 paired bench-model runs: MobileNet-V2 on AVX-512 3.5-4.2 -> 2.8-3.3 ms (three sets;
// rows outside in all layers but the last expansion at 14x14 and those at 7x7, whose kernels are
// 3-26 times their input), under the AVX2 ceiling 5.0 -> 4.7 ms; ResNet-18 8.4 -> 8.0 ms, but
// 9.1 ms with a factor of 4 (which also puts rows outside in C7 and C11). Alone (bench conv2d),
// C1-C12 within noise on both ISAs.
constexpr int64_t kThreadRowsKernelPerInput = 2;

// A 1x1 convolution's register tile on 32 registers, where its output rows are at most 28 wide:
// two vectors × 14 columns (a 14-wide row at once), twice the window cap, so each kernel vector
// loaded feeds twice the FMAs. No kernel width is unrolled beside it, so the 28 accumulators, the
// two kernel vectors and the FMAs' broadcast operands from memory fit. Measured on the Cascade Lake
// Xeon (AVX-512), 1 thread, bench conv2d against oneDNN: MobileNet-V2's 384→96 0.77 → 0.87,
// 576→96 0.71 → 0.92, 64→384 0.89 → 1.07 (14×14), 32→192 0.96 → 1.16 and 192→32 0.98 → 1.07
// (28×28); at 56 and 112 wide (few input channels or 24-channel outputs) it ran slower (144→24
// 0.77 → 0.68, 16→96 1.30 → 1.13), and at 7 wide the tile is the row either way. MobileNet-V2, 4
// alternating runs: 7.62 → 7.46 ms on 1 thread, 4.20 → 4.07 ms on 2. Stride 1 only: ResNet-18's 1x1
// stride-2 convolutions (C5, C8) gained too (0.90 → 1.03, 0.80 → 0.98), but their AVX-512
// defaults are pinned (tests/avx512_golden.h).
constexpr int64_t kNarrowPointwiseAccumulatorCap = 28;
constexpr int64_t kNarrowPointwiseMaxWidth = 28;

// A 16-register 1x1 convolution runs in reduction chunks (WindowConfig::reduce_chunk) when its
// register tile's kernel slice outgrows 1/kChunkedSliceL1Share of L1, each chunk's slice filling at
// most 1/kChunkL1Share, and its accumulator (an output block of one image) fits half of L1, as the
// measured layers' do (7x7 and 14x14 under AVX2's blocks: 3 and 12.5 KB; larger ones were not).
// Measured on the Cascade Lake Xeon under the AVX2 ceiling, 1 thread, bench conv2d against oneDNN,
// MobileNet-V2's layers (chunks of 64-192 input channels within noise of each other): 576→96 at
// 14x14 0.65-0.77 → 0.82-0.95, 384→96 0.78-0.80 → 0.82-0.90, 960→320 at 7x7 0.77-0.83 →
// 0.85-0.89; the whole model, its two modules alternating 30 times, 0.989 of the time on 1 thread
// and 0.976 on 2 (in a model the kernels come from L3, which chunks do not change). An earlier
// stop measured the unchunked tiles at 0.90 of oneDNN with K = 256 (a 16 KB slice), falling from
// there.
constexpr int64_t kChunkedSliceL1Share = 2;
constexpr int64_t kChunkL1Share = 4;

// Output blocks per register tile where a block fills part of a vector (AVX-512 with 24 output
// channels: 2 blocks of 12 floats): one block per tile issues a broadcast per FMA of 12 useful
// lanes; two share it. Measured on the Cascade Lake Xeon (AVX-512), 1 thread, bench conv2d against
// oneDNN: MobileNet-V2's 144→24 at 56x56 0.76 → 0.96-0.98, 96→24 0.85 → 1.00-1.01 (2 blocks × 7
// columns; 4 columns gained nothing, 0.80-0.82).
constexpr int64_t kPartialVectorBlocks = 2;

bool narrow_pointwise(const Tensor& output, const CpuDescription& cpu) {
  auto [conv, data, kernel] = conv_operands(output);
  bool stride_one = data.shape()[2] == conv.shape()[2] && data.shape()[3] == conv.shape()[3];
  return unrolled_window_fits(cpu) && kernel.shape()[2] == 1 && kernel.shape()[3] == 1 && stride_one &&
         output.shape()[3] <= kNarrowPointwiseMaxWidth;
}

// The default tile's columns for `output` with `channel_blocks` blocks per tile. Spanning blocks:
// the fewest columns that hide the FMA latency, which leaves the most registers spare. One block:
// as many as the accumulator budget allows, counted in floats, so a block narrower than a vector
// gets proportionally more columns (register_tile_size prefers a divisor of OW).
int64_t default_tile_columns(const Tensor& output, int64_t channel_blocks, const CpuDescription& cpu) {
  int64_t block = output.shape()[4], ow = output.shape()[3];
  int64_t block_vectors = float_vectors(cpu, block);
  if (channel_blocks > 1 && fma_broadcast_operands(cpu)) {  // partial-vector blocks: the budget shared
    int64_t accumulators = accumulator_budget(cpu, channel_blocks * block_vectors, kWindowAccumulatorCap);
    int64_t latency = latency_columns(channel_blocks * block_vectors * float_lanes(cpu), cpu);
    return register_tile_size(ow, accumulators / channel_blocks, latency, cpu);
  }
  if (channel_blocks > 1) {
    int64_t latency = latency_columns(channel_blocks * block_vectors * float_lanes(cpu), cpu);
    return register_tile_size(ow, latency, latency, cpu);
  }
  int64_t cap = narrow_pointwise(output, cpu) ? kNarrowPointwiseAccumulatorCap : kWindowAccumulatorCap;
  return conv2d_row_tile_columns(ow, block, cap, cpu);
}

// Output rows per default register tile: 1, except for a narrow 1x1 convolution whose tile spans
// its whole output row with accumulators to spare, which stacks rows up to the accumulator cap, so
// each kernel vector loaded feeds that many more FMAs. Its kernel, re-read once per row tile,
// comes from L2 or beyond in a model (a 7x7 layer's is 0.3-1.6 MB). Measured on the Cascade Lake
// Xeon (AVX-512), 1 thread, MobileNet-V2's 1x1 layers at 7x7 (tiles of 7 columns × 2 vectors)
// with 2 rows, in the model: 1813 -> 1420 us in all (25-30% each); alone (bench conv2d, the
// kernel staying in L2) 320->1280 0.82 -> 0.98 of oneDNN, 160->960 0.96 -> 1.04. The whole
// model, alternating runs: 7.29 -> 7.03 ms on 1 thread, 3.98 -> 3.90 ms on 2.
int64_t default_tile_rows(const Tensor& output, int64_t columns, int64_t channel_blocks, const CpuDescription& cpu) {
  if (!narrow_pointwise(output, cpu) || columns < output.shape()[3]) return 1;
  int64_t row_accumulators = columns * channel_blocks * float_vectors(cpu, output.shape()[4]);
  return std::max<int64_t>(1, kNarrowPointwiseAccumulatorCap / row_accumulators);
}

// Columns of `out_block` floats each that a one-row tile's accumulator budget (at most `cap`)
// holds, counted in floats: a block narrower than a vector gets proportionally more.
int64_t budget_columns(int64_t out_block, int64_t cap, const CpuDescription& cpu) {
  int64_t lanes = float_lanes(cpu);
  int64_t accumulators = accumulator_budget(cpu, float_vectors(cpu, out_block), cap);
  return accumulators * lanes / std::max(out_block, lanes);
}

// A k×k convolution's 16-register tile (one block per tile) where the row's widest tile leaves
// accumulators idle: two rows of half the budget's columns, when they hold more. ResNet-18's 7-wide
// C10 under the AVX2 ceiling (2-vector blocks, 6 columns of budget) tiles its row as 4 + 3 columns,
// 8 accumulators (just the FMA latency); two rows of 3 hold 12. 14 wide: 5 + 5 + 4 (10) against
// 2 × 3 (12); 28 and wider keep one row of 6. A template search (C10, one thread, weights
// flushed) found the same 2 × 3 tile fastest, and the template offers it either way. Measured on the
// Intel model-167 Xeon under the AVX2 ceiling, 1 thread, weights flushed, against oneDNN: C10
// 0.79 -> 0.89-0.90, C7 0.90-0.92 -> 0.94-0.96; in ResNet-18 on 1 thread both layers 5% faster.
// Not on 32 registers: there the 7-wide row is a whole 14-accumulator tile.
void stack_narrow_window_rows(WindowConfig& config, const Tensor& output, const CpuDescription& cpu) {
  const auto& k = conv_operands(output).kernel.shape();  // [ocb, icc, kh, kw, ib, ob]
  if (config.rows != 1 || config.channel_blocks != 1 || (k[2] == 1 && k[3] == 1)) return;
  int64_t block = output.shape()[4];
  int64_t half_budget = budget_columns(block, kWindowAccumulatorCap, cpu) / 2;
  int64_t columns = register_tile_size(output.shape()[3], half_budget, latency_columns(block, cpu), cpu);
  if (2 * columns <= config.columns) return;
  config.rows = 2;
  config.columns = columns;
}

}  // namespace

int64_t conv2d_row_tile_columns(int64_t width, int64_t out_block, int64_t cap, const CpuDescription& cpu) {
  return register_tile_size(width, budget_columns(out_block, cap, cpu), latency_columns(out_block, cpu), cpu);
}

bool rows_outer_pays(const Tensor& output, const CpuDescription& cpu) {
  auto [conv, data, kernel] = conv_operands(output);
  int64_t data_bytes = tensor_bytes(data), kernel_bytes = tensor_bytes(kernel);
  // Several threads: rows outside, every thread reads the whole kernel but only the input rows of
  // its share, which in a model the producer's same share wrote, on the same core; channels
  // outside, half the kernel but the whole input, half of it written on the other core.
  if (cpu.threads > 1) return kernel_bytes <= kThreadRowsKernelPerInput * data_bytes;
  // One thread: the 32-register schedules keep the order they were measured and pinned with.
  if (unrolled_window_fits(cpu)) return false;
  // Channels outside re-read the input once per output channel block, rows outside the kernel once
  // per output row; what each thread re-reads should come from its own L2, not the shared L3. Rows
  // outside, an output row works on the whole kernel and the input rows under its window.
  int64_t window_rows_bytes = data_bytes / data.shape()[2] * kernel.shape()[2];
  if (kernel_bytes + window_rows_bytes > cpu.l2_bytes) return false;
  if (data_bytes > cpu.l2_bytes) return true;
  const auto& out = conv.shape();
  return kernel_bytes * out[2] <= data_bytes * out[1];
}

Tensor conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& p, const std::string& name) {
  check_params(p, "conv2d_nchwc");
  check_shapes(data, kernel, p.groups);
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  int64_t oh = conv_output_extent(d[2], k[2], p.stride[0], p.padding[0], p.dilation[0], "conv2d_nchwc");
  int64_t ow = conv_output_extent(d[3], k[3], p.stride[1], p.padding[1], p.dilation[1], "conv2d_nchwc");
  Tensor padded = p.padding[0] == 0 && p.padding[1] == 0
                      ? data
                      : pad(data, {0, 0, p.padding[0], p.padding[1], 0}, {0, 0, p.padding[0], p.padding[1], 0},
                            make_zero(data.dtype()), name + ".pad");
  int64_t oc_blocks_per_group = k[0] / p.groups;
  IterVar icc = reduce_axis(k[1], "icc"), icb = reduce_axis(k[4], "icb");
  IterVar kh = reduce_axis(k[2], "kh"), kw = reduce_axis(k[3], "kw");
  return compute({d[0], k[0], oh, ow, k[5]}, [&](Var n, Var occ, Var y, Var x, Var ocb) {
    Expr in_block = p.groups == 1 ? Expr(icc.var()) : occ / Expr(oc_blocks_per_group) * Expr(k[1]) + icc.var();
    Expr iy = y * Expr(p.stride[0]) + kh.var() * Expr(p.dilation[0]);
    Expr ix = x * Expr(p.stride[1]) + kw.var() * Expr(p.dilation[1]);
    return sum(padded(n, in_block, iy, ix, icb) * kernel(occ, icc, kh, kw, icb, ocb), {icc, icb, kh, kw});
  }, name, "conv2d_nchwc");
}

int64_t conv2d_tile_channel_blocks(const Tensor& output, const CpuDescription& cpu) {
  auto [conv, data, kernel] = conv_operands(output);
  // A broadcast input element is shared only by the output blocks of its group.
  int64_t groups = data.shape()[1] / kernel.shape()[1];
  int64_t group_blocks = kernel.shape()[0] / groups;
  if (fma_broadcast_operands(cpu))
    return output.shape()[4] < float_lanes(cpu) ? largest_divisor_at_most(group_blocks, kPartialVectorBlocks) : 1;
  if (float_vectors(cpu, output.shape()[4]) > 1) return 1;
  return largest_divisor_at_most(group_blocks, kMaxColumnVectors);
}

namespace {

// The block of `channels` that no whole vector of the CPU's floats divides: the largest divisor up to
// one vector, unless on 512-bit vectors a divisor made of whole 256-bit halves up to two vectors
// keeps at least as many lanes of its vectors busy (24 channels, MobileNet-V2's narrowest: one
// block of 16 + 8, 3/4 of two vectors, against blocks of 12, 3/4 of one). Then no lane idles where a
// 512-bit FMA runs as two 256-bit halves (Zen 4), and no fewer are busy where it runs whole (56
// channels keep blocks of 14, not of 8).
int64_t block_of_halves(int64_t channels, const CpuDescription& cpu) {
  const int64_t half = 8, lanes = float_lanes(cpu);  // floats in 256 bits, in a vector
  int64_t divisor = largest_divisor_at_most(channels, lanes);
  auto busy = [&](int64_t block) { return double(block) / double(float_vectors(cpu, block) * lanes); };
  if (lanes > half)
    for (int64_t b = 2 * lanes; b >= half; b -= half)
      if (channels % b == 0 && busy(b) >= busy(divisor)) return b;
  return divisor;
}

}  // namespace

Conv2dBlocks choose_conv2d_blocks(int64_t in_channels, int64_t out_channels, int64_t groups, const Target& target) {
  if (groups <= 0 || in_channels % groups != 0 || out_channels % groups != 0)
    user_error("conv2d: ", groups, " groups must divide the ", in_channels, " input and ", out_channels,
               " output channels");
  const CpuDescription& cpu = target.cpu();
  int64_t lanes = float_lanes(cpu), per_group = out_channels / groups;
  return {first_divisor(in_channels / groups, {lanes}, block_of_halves(in_channels / groups, cpu)),
          first_divisor(per_group, {2 * lanes, lanes}, block_of_halves(per_group, cpu))};
}

// Where the default pads: inline for the few multiply-adds per input element, else a copy, padded
// per thread when there are several (ops/window_schedule.h). Measured on Zen 5 with AVX-512, 2
// threads, C1-C12 geomean against oneDNN over runs of 3: a root pad 0.90-0.94 (C4 0.58-0.68), a pad
// per thread 1.01-1.05 (C4 0.92-0.96), per output row 0.98 (whose copy per row and channel block
// costs 5% on one thread); on 1 thread a pad per thread is the root pad.
PadPlacement default_pad(const Tensor& output, const CpuDescription& cpu) {
  if (macs_per_input_element(output) < kInlinePadMacsPerElement) return PadPlacement::Inline;
  return cpu.threads > 1 ? PadPlacement::PerThread : PadPlacement::Root;
}

int64_t conv2d_reduce_chunk(const Tensor& output, int64_t channel_blocks, const CpuDescription& cpu) {
  const auto& k = conv_operands(output).kernel.shape();  // [ocb, icc, kh, kw, ib, ob]
  if (unrolled_window_fits(cpu) || k[2] != 1 || k[3] != 1) return 0;
  int64_t block_bytes = k[4] * k[5] * channel_blocks * output.dtype().bytes();
  const auto& out = output.shape();
  int64_t accumulator_bytes = out[2] * out[3] * out[4] * channel_blocks * output.dtype().bytes();
  int64_t half_l1 = cpu.l1d_bytes / kChunkedSliceL1Share;  // the slice's threshold, the accumulator's room
  if (k[1] * block_bytes <= half_l1 || accumulator_bytes > half_l1) return 0;
  int64_t most = std::max<int64_t>(1, cpu.l1d_bytes / kChunkL1Share / block_bytes);
  int64_t divisor = largest_divisor_at_most(k[1], most);
  // A divisor far below the most (a prime number of blocks) would make every chunk short: then
  // the chunks are the most, the last one partial.
  return 2 * divisor >= most ? divisor : most;
}

WindowConfig conv2d_fallback_config(const Tensor& output, const Target& target) {
  const CpuDescription& cpu = target.cpu();
  int64_t channel_blocks = conv2d_tile_channel_blocks(output, cpu);
  int64_t columns = default_tile_columns(output, channel_blocks, cpu);
  // reduction axes: icc 0, icb 1, kh 2, kw 3
  WindowConfig config{default_tile_rows(output, columns, channel_blocks, cpu), columns, {0, 2, 1, 3}, {3},
                      default_pad(output, cpu), rows_outer_pays(output, cpu), channel_blocks, cpu.threads};
  config.prefetch_bytes = cpu.prefetch_bytes;
  if (unrolled_window_fits(cpu)) return config;  // icc, kh, icb, kw with kw unrolled
  // icc, kh, kw, icb, nothing unrolled: each step loads its ob kernel vectors and broadcasts one
  // input element per column, and no input element is shared between steps (as oneDNN's AVX2 kernel)
  config.reduce_order = {0, 2, 3, 1};
  config.unrolled = {};
  config.reduce_chunk = conv2d_reduce_chunk(output, channel_blocks, cpu);
  stack_narrow_window_rows(config, output, cpu);
  return config;
}

namespace {

// A 1x1 kernel prefetched in the innermost serial reduction loop whose iterations walk it in
// memory order ([icc, kh, kw, icb] per output block): every reduction loop inside it runs over a
// later dimension, so "offset iterations ahead" is the stream's next bytes (the icb loop, in every
// order a template picks). A step reads the kernel vectors of all the loops inside. Not k x k
// kernels (stream_kernel): there each weight serves many register tiles, and on Zen 5 (AVX-512,
// one thread) prefetching at the kh loop made ResNet-18's stride-2 3x3 layers 10-30% slower in the
// model, the prefetches of every later tile taking load slots for lines already in L1.
void prefetch_pointwise_kernel(Stage acc, const Tensor& kernel, const WindowConfig& config) {
  const auto& k = kernel.shape();                      // [ocb, icc, 1, 1, ib, ob]
  const int64_t extents[] = {k[1], k[4], k[2], k[3]};  // reduction axes icc, icb, kh, kw
  const int memory_rank[] = {0, 3, 1, 2};              // their dimensions' order in the layout
  auto unrolled = [&](int r) { return std::count(config.unrolled.begin(), config.unrolled.end(), r) > 0; };
  const std::vector<int>& order = config.reduce_order;
  int64_t step = config.channel_blocks * k[5] * kernel.dtype().bytes();
  for (auto r = order.rbegin(); r != order.rend(); ++r) {
    if (extents[*r] == 1) continue;  // a loop of one iteration walks nothing to prefetch ahead of
    auto later = [&](int q) { return extents[q] == 1 || memory_rank[q] > memory_rank[*r]; };
    bool inside_later = std::all_of(order.rbegin(), r, later);
    bool chunk = *r == 0 && config.reduce_chunk > 0;  // split; its loop is not reduce_axis(0)
    if (inside_later && !unrolled(*r) && !chunk)
      return prefetch_weights(acc, kernel, acc.reduce_axis(*r), step, config.prefetch_bytes);
    step *= extents[*r];
  }
}

// Most lines of a k×k kernel's stream one loop iteration prefetches (prefetch_whole's
// max_lines_per_step): a core stalls when its prefetches outnumber the misses it keeps in flight.
constexpr int64_t kKernelStreamLinesPerStep = 16;

// A k×k kernel prefetched into L2 as one even stream over the stage's loops, a register tile's
// kernel slice ahead. With channels outside rows, each output channel tile reads its slice once per
// row tile: the first row from memory, at the FMAs' pace, far faster than memory delivers, and the
// rest from L2. The stream fetches the next tile's slice while this one's rows run. Not with rows
// outside channels, whose every row tile reads the whole kernel (the stream would not keep pace).
// Measured on the Intel model-167 Xeon, 1 thread, weights flushed, against oneDNN: AVX-512 C10
// 0.90-0.94 -> 1.17-1.19, C7 0.95-0.96 -> 1.04-1.05, C4 0.93-0.94 -> 0.96-0.99; under the AVX2
// ceiling C10 0.96 -> 1.10-1.11, C7 0.95-0.96 -> 1.01-1.02, C4 0.95-0.98 -> 0.98-1.00. A lead of
// two slices gained less (C10 1.03), L1 instead of L2 the same.
void stream_kernel(Stage acc, const Tensor& kernel, const WindowConfig& config) {
  if (config.rows_outer) return;
  int64_t tile_slice_bytes = tensor_bytes(kernel) / kernel.shape()[0] * config.channel_blocks;
  acc.prefetch_whole(kernel, kKernelStreamLinesPerStep, tile_slice_bytes);
}

}  // namespace

void check_pointwise_operands(const char* op, const Tensor& data, const Tensor& kernel) {
  if (data.ndim() != 5 || kernel.ndim() != 6)
    user_error(op, ": data must be 5-D (NCHWc) and kernel 6-D (OIHWio); got ", data.ndim(), "-D and ", kernel.ndim(),
               "-D");
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  if (k[2] != 1 || k[3] != 1 || k[1] != d[1] || k[4] != d[4])
    user_error(op, ": the kernel (", k[2], "x", k[3], ", ", k[1], " input blocks of ", k[4],
               ") is not an ungrouped 1x1 kernel over the data's ", d[1], " blocks of ", d[4], "; use conv2d_nchwc");
}

void prefetch_conv2d_kernel(Stage acc, const Tensor& kernel, const WindowConfig& config) {
  if (config.prefetch_bytes <= 0) return;
  const auto& k = kernel.shape();  // [ocb, icc, kh, kw, ib, ob]
  if (k[2] == 1 && k[3] == 1)
    prefetch_pointwise_kernel(acc, kernel, config);
  else
    stream_kernel(acc, kernel, config);
}

Schedule schedule_conv2d_nchwc(const Tensor& output, const WindowConfig& config) {
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);
  schedule_window(s, output, acc, config);
  prefetch_conv2d_kernel(s[acc], conv_operands(output).kernel, config);
  return s;
}

namespace {

std::unique_ptr<OpSchedule> make_conv2d_nchwc_schedule(const PluginParams& p) {
  int64_t reg_n = p.get_int("reg_n"), channel_blocks = p.get_int("channel_blocks");
  int64_t reduce_chunk = p.get_int("reduce_chunk");
  bool per_row = p.get_bool("pad_per_row");
  return std::make_unique<FunctionSchedule>([=](const Tensor& out, const Target& target) {
    WindowConfig config = conv2d_fallback_config(out, target);
    if (reg_n > 0) config.columns = reg_n;
    if (channel_blocks > 0) config.channel_blocks = channel_blocks;
    if (reduce_chunk >= 0) config.reduce_chunk = reduce_chunk;
    if (per_row) config.pad = PadPlacement::PerRow;
    return schedule_conv2d_nchwc(out, config);
  });
}

const std::vector<ParamSpec> kConv2dNchwcParams = {
    {"reg_n", ParamType::Int, 0, "output columns per register tile (0: from the target's registers)",
     Allowed::at_least(0)},
    {"channel_blocks", ParamType::Int, 0,
     "output channel blocks per register tile, dividing the blocks (0: from the target)", Allowed::at_least(0)},
    {"reduce_chunk", ParamType::Int, -1,
     "input-channel blocks per reduction chunk, the accumulator spanning a channel block's output (0: none; -1: "
     "from the target)", Allowed::at_least(-1)},
    {"pad_per_row", ParamType::Bool, false, "pad the input rows of each output row just before it (else all first)"}};

}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(conv2d_nchwc, cpu,
                            "conv2d NCHWc on CPU: columns x channel-block register tile sized for the target (TVM x86)",
                            kConv2dNchwcParams, make_conv2d_nchwc_schedule);

}  // namespace tessel::ops
