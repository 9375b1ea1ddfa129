// A 1x1, stride-1, unpadded, ungrouped conv2d_nchwc computed over the flattened pixels of each
// channel block, so that a register tile may span output rows. Such a convolution reads input
// pixel p for output pixel p, and NCHWc stores a block's pixels row after row, so the H x W output
// is one axis of H*W pixels. The row tiles of 16 vector registers split a 7-wide row into 4 + 3
// columns, and the 3-column tile holds 6 accumulators, too few to hide the FMA latency (8 with
// two 4-cycle pipes); over the flattened pixels every tile but the last holds 12. A schedule of
// the 5-D convolution cannot tile that way: fusing its row and column loops gives each tile a
// region of whole rows (bound inference works on boxes), so the reduction itself is 4-D here.
//
//   Tensor out = conv2d_nchwc_pixels(data, kernel);               // [N, O/ob, H, W, ob]
//   Schedule s = default_schedule(out, Target::parse("llvm_cpu -isa=avx2"));
#pragma once
#include "datasets/workloads.h"
#include "ir/schedule.h"
#include "ops/workload_ops.h"
#include "target/target.h"

namespace tessel::ops {

// The workload of a convolution over its pixels, an operator of its own for tuning
// (pixels:N,C,H,W,OC; its template is search/spaces/pixels_template.h): a 1x1, stride-1, unpadded
// conv2d whose schedule tiles pixels rather than rows, so the conv2d template cannot schedule it.
struct PixelsShape {
  int64_t n, c, h, w, oc;
  Conv2dShape conv2d() const { return {n, c, h, w, oc, 1, 1, 1, 0}; }
  double flops() const { return conv2d().flops(); }
};

// Inputs data [N, C/ib, H, W, ib] and kernel [OC/ob, C/ib, 1, 1, ib, ob] in conv2d_instance's
// blocks (those the layout pass gives the layer), the output conv2d_nchwc_pixels'.
OpInstance pixels_instance(const PixelsShape& shape, const Target& target);

// One configuration of the schedule: register tiles of `pixels` pixels × the output block; the
// parallel loop over output blocks × pixel tiles, or with tiles_outer pixel tiles × output blocks;
// the weights prefetched `prefetch_bytes` ahead of their reads (0: none). With `channel_blocks`
// above 0, the input blocks run in slices of that many outside the pixel tiles instead, each slice
// of the weights serving every tile of an output block while it is in L1 (the accumulators kept
// in the block's sum between slices), and the threads share the output blocks alone.
struct PixelsConfig {
  int64_t pixels = 1;
  bool tiles_outer = false;
  int64_t prefetch_bytes = 0;
  int64_t channel_blocks = 0;
};

// The convolution of data [N, C/ib, H, W, ib] with a 1x1 kernel [O/ob, C/ib, 1, 1, ib, ob]: a
// reduction [N, O/ob, H*W, ob] tagged "conv2d_nchwc_pixels.sum" and, returned, its NCHWc view
// [N, O/ob, H, W, ob] tagged "conv2d_nchwc_pixels" (an element-wise stage the schedule inlines).
Tensor conv2d_nchwc_pixels(const Tensor& data, const Tensor& kernel, const std::string& name = "conv2d_nchwc");

// Whether a 1x1, stride-1, unpadded, ungrouped convolution whose output is `width` wide, in
// blocks of `out_block` channels, runs over its pixels on `cpu`: with 16 vector registers, where
// the default row tiles leave one with fewer accumulators than hide the FMA latency, on outputs at
// most 14 wide. Measured on Zen 5 under the AVX2 ceiling, 1 thread, MobileNet-V2's 1x1 layers at
// 7x7 alone: 1.17-1.34x faster over the pixels (160->960 165 -> 137 us, 320->1280 500 -> 409);
// at 14x14 within -3..+5%, at 28x28 and 56x56 1-6% faster, where those layers run in fused
// blocks instead (passes/graph/fuse_blocks.cpp).
bool pixel_tiles_pay(int64_t width, int64_t out_block, const CpuDescription& cpu);

// The input blocks per slice of the default configuration (PixelsConfig::channel_blocks): 1 where
// the output has at least two blocks per thread, else 0 (the threads share the pixel tiles too).
int64_t pixel_channel_blocks(int64_t output_blocks, int threads);
// The default schedule of a conv2d_nchwc_pixels `output` (or of a fused group's output reading
// it): pixels_fallback_config's. Registered as "conv2d_nchwc_pixels@cpu".
Schedule schedule_conv2d_nchwc_pixels(const Tensor& output, const Target& target);

// The configuration schedule_conv2d_nchwc_pixels(output, target) runs: tiles of
// conv2d_row_tile_columns(H*W, ...) pixels (conv2d's row rule over all pixels) × the output block,
// the target's prefetch, pixel_channel_blocks' slices.
PixelsConfig pixels_fallback_config(const Tensor& output, const Target& target);

// The schedule of a conv2d_nchwc_pixels `output` (or of a fused group's output reading it) with
// `config`. Throws UserError if config.pixels, prefetch_bytes or channel_blocks is out of range.
Schedule schedule_conv2d_nchwc_pixels(const Tensor& output, const PixelsConfig& config);

}  // namespace tessel::ops
