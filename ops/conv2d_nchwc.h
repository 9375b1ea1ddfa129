// conv2d in the blocked layout of TVM's x86 conv2d_NCHWc: data [N, C/ib, H, W, ib], kernel
// [O/ob, (C/groups)/ib, KH, KW, ib, ob], output [N, O/ob, OH, OW, ob], with its CPU schedule: a
// register tile of output columns × the ob output channels (two vectors), accumulated over input
// channels and the kernel window with the kernel width unrolled, threads over (output-channel
// block, output row). Padding is a stage at the root, or inline where the convolution does little
// work per input element (a 3-channel stem). Blocks and tile are sized for the target.
#pragma once
#include "ir/schedule.h"
#include "ops/conv2d_params.h"
#include "ops/window_schedule.h"
#include "target/target.h"

namespace tessel::ops {

// Tagged "conv2d_nchwc". With groups > 1, the channels per group must be multiples of the blocks.
Tensor conv2d_nchwc(const Tensor& data, const Tensor& kernel, const Conv2dParams& params,
                    const std::string& name = "conv2d_nchwc");

// Block sizes a caller should convert to, for the target's vector width (lanes floats): ob = two
// vectors (32 floats on AVX-512, 16 on AVX2) when it divides the output channels per group, else
// one vector when that does, else a divisor up to one vector; ib = one vector when it divides the
// input channels per group, else a divisor up to one vector. Where no vector divides, 512-bit
// targets take the largest divisor of whole 256-bit halves up to two vectors instead where it keeps
// as many lanes busy (24 channels: a vector and a half, not two blocks of 12). Two vectors per
// column halve the input broadcasts per FMA and give narrow outputs (OW = 7) enough accumulators.
struct Conv2dBlocks {
  int64_t ib, ob;
};
Conv2dBlocks choose_conv2d_blocks(int64_t in_channels, int64_t out_channels, int64_t groups, const Target& target);

// The fallback configuration for a conv2d_nchwc `output` on `target`: a register tile of columns ×
// the output block (× conv2d_tile_channel_blocks blocks, then with the fewest columns that hide the
// FMA latency, or on AVX-512 as many as the accumulator budget shared among the blocks allows)
// whose accumulators fit the register file (ops/cpu_tiles.h; up to 28 for stride-1
// 1x1 convolutions at most 28 wide on 32 registers, else 14), columns dividing OW
// or, with 16 registers, balanced partial tiles (register_tile_size); the reduction over
// input-channel blocks, kernel rows, then the input block and the unrolled kernel width where 32
// registers hold them (unrolled_window_fits), else the kernel width and the input block in loops
// and the parallel order of rows_outer_pays, in reduction chunks where conv2d_reduce_chunk gives
// them; padding per thread (at the root with one thread),
// inline below 128 multiply-adds per input element (where copying the input costs about as much
// as the convolution).
WindowConfig conv2d_fallback_config(const Tensor& output, const Target& target);

// UserError naming `op` unless `data` is 5-D (NCHWc) and `kernel` an ungrouped 1x1 conv2d_nchwc
// kernel over its blocks: the operands of the 1x1 forms (ops/conv2d_pixels.h, ops/conv2d_shares.h).
void check_pointwise_operands(const char* op, const Tensor& data, const Tensor& kernel);

// The kernel prefetches conv2d_nchwc's schedule adds to `acc`, the accumulator of a conv2d_nchwc
// stage reading `kernel` scheduled by `config`: a 1x1 kernel config.prefetch_bytes ahead of its
// reads, a k×k one streamed into L2 a register tile's slice ahead; none when prefetch_bytes is 0.
void prefetch_conv2d_kernel(Stage acc, const Tensor& kernel, const WindowConfig& config);

// Columns of a register tile of one output block of `out_block` channels over an output `width`
// wide, with at most `cap` accumulators: the budget counted in floats, so a block narrower than a
// vector gets proportionally more columns, sized by register_tile_size (the default's rule for one
// block per tile).
int64_t conv2d_row_tile_columns(int64_t width, int64_t out_block, int64_t cap, const CpuDescription& cpu);

// Output channel blocks one register tile of a conv2d_nchwc `output` spans on `cpu`
// (WindowConfig::channel_blocks). Where the FMAs cannot take a broadcast operand from memory (AVX2)
// and the block is one vector, a tile one vector wide issues a broadcast load per FMA; grouping up
// to three blocks of a group (MobileNet-V2's 24 channels: 3 x 8) shares each broadcast among them.
// On AVX-512, whose FMAs broadcast from memory, 2 where a block fills part of a vector (24
// channels: 2 x 12), so each broadcast feeds two FMAs; 1 elsewhere (blocks of two vectors already
// share it).
int64_t conv2d_tile_channel_blocks(const Tensor& output, const CpuDescription& cpu);

// Whether a conv2d_nchwc `output` runs faster with row tiles outside the output channel blocks in
// its parallel loop (WindowConfig::rows_outer). On several threads: when the kernel is at most
// twice the input, so that in a model each thread reads the input rows its own share of the
// producer wrote rather than half of every channel from another core (which on vCPUs sharing no
// cache is the costlier traffic). On one thread, on 16-register CPUs: when each thread's L2 holds
// the kernel with the input rows of one output row but not the whole input, or holds both and the
// kernel re-read per row is the smaller traffic; measured operator by operator on AVX2 (Zen 3,
// 512 KB L2, 2 threads, before the rule for several threads): ResNet-18's C1-C5 and C8 run rows
// outside, up to 2.2x faster (C5), and C6, C7 and C9-C12 channels outside (C11's 512 KB kernel
// leaves no room; rows outside, it runs 5-10% slower). AVX-512 on one thread: channels outside, as
// measured and pinned.
bool rows_outer_pays(const Tensor& output, const CpuDescription& cpu);

// Reduction chunks (WindowConfig::reduce_chunk) for a 1x1 conv2d_nchwc `output` whose register
// tiles span `channel_blocks` output blocks, on 16-register CPUs, where a tile's kernel slice
// outgrows half of L1 (K > 256 with AVX2's 16-float blocks and a 32 KB L1) and the accumulator, an
// output block of one image, fits the other half: the most input-channel blocks, dividing them,
// whose slice fills at most a quarter of L1 (or, where that divisor is under half of the most, the
// most, the last chunk partial). 0 elsewhere: other convolutions, smaller slices,
// larger outputs, and 32 registers, whose tiles span enough output points per kernel vector to
// read the kernel from L2 at the FMAs' pace.
int64_t conv2d_reduce_chunk(const Tensor& output, int64_t channel_blocks, const CpuDescription& cpu);

// The conv2d NCHWc schedule (ops/window_schedule.h's, on a cache_write accumulator).
Schedule schedule_conv2d_nchwc(const Tensor& output, const WindowConfig& config);

}  // namespace tessel::ops
