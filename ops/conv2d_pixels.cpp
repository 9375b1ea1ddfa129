// conv2d_nchwc over flattened pixels and its CPU schedule (ops/conv2d_pixels.h).
#include "ops/conv2d_pixels.h"

#include "ops/conv2d_nchwc.h"
#include "ops/cpu_tiles.h"
#include "ops/op_schedule.h"
#include "ops/weight_prefetch.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

constexpr int64_t kPixelTileMaxWidth = 14;

}  // namespace

bool pixel_tiles_pay(int64_t width, int64_t out_block, const CpuDescription& cpu) {
  if (unrolled_window_fits(cpu) || width > kPixelTileMaxWidth) return false;
  int64_t columns = conv2d_row_tile_columns(width, out_block, kWindowAccumulatorCap, cpu);
  int64_t last = width % columns;
  return last > 0 && last * float_vectors(cpu, out_block) < cpu.min_accumulators();
}

Tensor conv2d_nchwc_pixels(const Tensor& data, const Tensor& kernel, const std::string& name) {
  check_pointwise_operands("conv2d_nchwc_pixels", data, kernel);
  const auto& d = data.shape();
  const auto& k = kernel.shape();
  int64_t width = d[3];
  IterVar icc = reduce_axis(k[1], "icc"), icb = reduce_axis(k[4], "icb");
  Tensor sum_over_pixels = compute({d[0], k[0], d[2] * width, k[5]}, [&](Var n, Var occ, Var p, Var ocb) {
    return sum(data(n, icc, p / Expr(width), p % Expr(width), icb) * kernel(occ, icc, 0, 0, icb, ocb), {icc, icb});
  }, name + ".sum", "conv2d_nchwc_pixels.sum");
  return compute({d[0], k[0], d[2], width, k[5]}, [&](Var n, Var occ, Var y, Var x, Var ocb) {
    return sum_over_pixels(n, occ, y * Expr(width) + x, ocb);
  }, name, "conv2d_nchwc_pixels");
}

OpInstance pixels_instance(const PixelsShape& shape, const Target& target) {
  OpInstance conv = conv2d_instance(shape.conv2d(), target);
  return {conv.inputs, conv2d_nchwc_pixels(conv.inputs[0], conv.inputs[1])};
}

PixelsConfig pixels_fallback_config(const Tensor& output, const Target& target) {
  TESSEL_CHECK(output.ndim() == 5, "conv2d_nchwc_pixels output '", output.name(), "' must be 5-D");
  const CpuDescription& cpu = target.cpu();
  PixelsConfig config;
  // conv2d's row tile rule over the H*W pixels instead of a row's W columns
  config.pixels =
      conv2d_row_tile_columns(output.shape()[2] * output.shape()[3], output.shape()[4], kWindowAccumulatorCap, cpu);
  config.prefetch_bytes = cpu.prefetch_bytes;
  config.channel_blocks = pixel_channel_blocks(output.shape()[0] * output.shape()[1], cpu.threads);
  return config;
}

// A tile over all the input channels re-reads its output block's weights (61 KB for 960 channels
// in 16-wide blocks, more than L1) from L2 for every tile, the first from memory; one input block
// at a time keeps its 512 bytes in L1 for all the tiles. Measured on the Intel Xeon (model 167)
// under the AVX2 ceiling, MobileNet-V2's eight 7x7 1x1 calls summed in the per-call profile, two
// alternating runs: one thread 1884-1935 -> 1480-1542 us, two 980-1015 -> 817-837 (slices of 2
// blocks 1531-1532 and 817-863, of 4 1754-1813 and 903-945; the weights prefetched per tile).
// With fewer output blocks than two per thread the pixel tiles are worth sharing among the threads
// instead (not measured).
int64_t pixel_channel_blocks(int64_t output_blocks, int threads) { return output_blocks >= 2 * threads ? 1 : 0; }

Schedule schedule_conv2d_nchwc_pixels(const Tensor& output, const Target& target) {
  return schedule_conv2d_nchwc_pixels(output, pixels_fallback_config(output, target));
}

namespace {

// The tile's accumulator over all input channels, computed in each iteration of the parallel loop
// over (output block, pixel tile); each icb step reads one ob row of the weights.
void schedule_tiles_over_all_channels(Stage c, const IterVar& tiles, Stage a, const Tensor& kernel,
                                      const PixelsConfig& config) {
  if (config.tiles_outer) c.reorder({tiles, c.axis(1)});
  IterVar parallel = config.tiles_outer ? c.fuse(tiles, c.axis(1)) : c.fuse(c.axis(1), tiles);
  c.parallel(parallel);
  a.compute_at(c, parallel);
  a.reorder({a.reduce_axis(0), a.reduce_axis(1), a.axis(2), a.axis(3)});  // the tile innermost
  a.unroll(a.axis(2));
  a.vectorize(a.axis(3));
  prefetch_weights(a, kernel, a.reduce_axis(1), kernel.shape()[5] * kernel.dtype().bytes(), config.prefetch_bytes);
}

// The sums of a whole output block computed in each iteration of the parallel loop over output
// blocks, slice of input blocks by slice, every pixel tile in each; a slice's weights prefetched
// once, ahead of the tiles (at each tile instead measured the same in MobileNet-V2).
void schedule_channel_slices(Stage c, Stage a, const Tensor& kernel, const PixelsConfig& config) {
  IterVar blocks = c.fuse(c.axis(0), c.axis(1));
  c.parallel(blocks);
  a.compute_at(c, blocks);
  auto [tiles, pixels] = a.split(a.axis(2), config.pixels);
  auto [slices, in_slice] = a.split(a.reduce_axis(0), config.channel_blocks);
  a.reorder({slices, tiles, in_slice, a.reduce_axis(1), pixels, a.axis(3)});
  a.unroll(pixels);
  a.vectorize(a.axis(3));
  int64_t block_bytes = kernel.shape()[4] * kernel.shape()[5] * kernel.dtype().bytes();
  prefetch_weights(a, kernel, slices, block_bytes * config.channel_blocks, config.prefetch_bytes);
}

}  // namespace

Schedule schedule_conv2d_nchwc_pixels(const Tensor& output, const PixelsConfig& config) {
  TESSEL_CHECK(output.ndim() == 5, "conv2d_nchwc_pixels output '", output.name(), "' must be 5-D");
  if (config.pixels < 1 || config.prefetch_bytes < 0 || config.channel_blocks < 0)
    user_error("pixel-tiled schedule of '", output.name(), "': ", config.pixels, " pixels per register tile, ",
               config.prefetch_bytes, " bytes of prefetch and slices of ", config.channel_blocks,
               " input blocks; use at least 1 pixel, 0 bytes or more and 0 blocks (no slices) or more");
  Schedule s = create_schedule({output});
  Tensor acc = output_accumulator(s, output);  // the 4-D reduction; the view and any tail inlined
  Stage c = s[output];
  auto [tiles, pixels] = c.split(c.fuse(c.axis(2), c.axis(3)), config.pixels);
  c.unroll(pixels);
  c.vectorize(c.axis(4));
  Tensor kernel = window_operands(output, "conv2d_nchwc_pixels.sum").kernel;
  if (config.channel_blocks > 0)
    schedule_channel_slices(c, s[acc], kernel, config);
  else
    schedule_tiles_over_all_channels(c, tiles, s[acc], kernel, config);
  return s;
}

TESSEL_REGISTER_OP_SCHEDULE(conv2d_nchwc_pixels, cpu,
                            "1x1 conv2d NCHWc over flattened pixels on CPU: pixels x output-block register tile "
                            "(the 16-register default for outputs whose rows leave too few accumulators)",
                            {}, [](const PluginParams&) -> std::unique_ptr<OpSchedule> {
                              return std::make_unique<FunctionSchedule>([](const Tensor& out, const Target& target) {
                                return schedule_conv2d_nchwc_pixels(out, target);
                              });
                            });

}  // namespace tessel::ops
