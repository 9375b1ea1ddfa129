// conv2d_nchwc_pixels (ops/conv2d_pixels.h): the same values as conv2d_nchwc, bit for bit once
// compiled (the same order of additions), on every runnable CPU target; its accumulator holds one
// tile of pixels, not the whole rows under it, or in slices of input blocks the whole output block;
// when it pays; what it rejects.

#include "ir/printer.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_pixels.h"
#include "ops/op_schedule.h"
#include "passes/lower/lower.h"
#include "runtime/thread_pool.h"
#include "tests/ops/ops_test_util.h"

using namespace tessel;
using namespace tessel::ops;

namespace {

// data [N, C/ib, H, W, ib] and a 1x1 kernel [O/ob, C/ib, 1, 1, ib, ob].
struct Pointwise {
  int64_t n, c_blocks, h, w, ib, o_blocks, ob;
};

}  // namespace

TEST_CASE("conv2d_nchwc_pixels computes what conv2d_nchwc computes", "[ops][conv2d]") {
  const Pointwise cases[] = {
      {1, 3, 7, 7, 8, 2, 16},  // MobileNet-V2's 7x7 layers in small: 49 pixels, tiles of 5 on AVX2
      {2, 2, 5, 3, 4, 3, 8},   // batch 2, a 5x3 image
      {1, 1, 14, 14, 16, 1, 32},
      {1, 3, 7, 7, 8, 5, 16},  // 5 output blocks: slices of one input block on up to 2 threads
  };
  set_num_threads(2);
  for (const Pointwise& p : cases) {
    Tensor x = placeholder({p.n, p.c_blocks, p.h, p.w, p.ib}, DataType::float32(), "x");
    Tensor k = placeholder({p.o_blocks, p.c_blocks, 1, 1, p.ib, p.ob}, DataType::float32(), "k");
    NDArray xv = test::random_array(x.shape(), 1), kv = test::random_array(k.shape(), 2);
    Tensor blocked = conv2d_nchwc(x, k, {}), pixels = conv2d_nchwc_pixels(x, k);
    NDArray expected = evaluate(blocked, {{x, xv}, {k, kv}});
    CHECK(test::max_abs_diff(test::to_vector(evaluate(pixels, {{x, xv}, {k, kv}})), test::to_vector(expected)) <= 1e-5);
    for (const Target& target : test::runnable_cpu_targets()) {
      INFO(target.key() << ", data " << shape_str(x.shape()));
      NDArray ours = test::run_default_schedule(pixels, x, k, xv, kv, target);
      NDArray theirs = test::run_default_schedule(blocked, x, k, xv, kv, target);
      CHECK(test::max_abs_diff(test::to_vector(ours), test::to_vector(expected)) <= 1e-4);
      CHECK(test::max_abs_diff(test::to_vector(ours), test::to_vector(theirs)) == 0);
    }
  }
}

TEST_CASE("conv2d_nchwc_pixels accumulates one tile of pixels, across rows", "[ops][conv2d]") {
  // 7x7 under AVX2: 13 accumulators' budget / 2 vectors per pixel allow 6 pixels a tile, but 8
  // tiles of 6 leave one of a single pixel, which waits on the FMA latency; 9 tiles of 5 leave one
  // of 4, whose 8 accumulators hide it. Bound inference sees through the fused row and column loops.
  Tensor x = placeholder({1, 20, 7, 7, 8}, DataType::float32(), "x");
  Tensor k = placeholder({60, 20, 1, 1, 8, 16}, DataType::float32(), "k");
  Tensor y = conv2d_nchwc_pixels(x, k, "conv");
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  PixelsConfig config = pixels_fallback_config(y, avx2);
  CHECK(config.pixels == 5);
  config.channel_blocks = 0;
  std::string program = to_string(lower(schedule_conv2d_nchwc_pixels(y, config), {x, k, y}, "conv", avx2));
  INFO(program);
  CHECK(program.find("allocate conv.sum[float32 * 80]") != std::string::npos);  // 5 pixels x 16 channels
  CHECK(program.find("parallel (") != std::string::npos);
}

TEST_CASE("conv2d_nchwc_pixels in slices of input blocks sums a whole output block, slice by slice",
          "[ops][conv2d]") {
  Tensor x = placeholder({1, 20, 7, 7, 8}, DataType::float32(), "x");
  Tensor k = placeholder({60, 20, 1, 1, 8, 16}, DataType::float32(), "k");
  Tensor y = conv2d_nchwc_pixels(x, k, "conv");
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  CHECK(pixels_fallback_config(y, avx2).channel_blocks == pixel_channel_blocks(60, avx2.cpu().threads));
  std::string program = to_string(lower(default_schedule(y, avx2), {x, k, y}, "conv", avx2));
  INFO(program);
  CHECK(program.find("allocate conv.sum[float32 * 784]") != std::string::npos);  // 49 pixels x 16 channels
  CHECK(program.find("parallel (i.j.fused, 0, 60)") != std::string::npos);     // the output blocks
  CHECK(pixel_channel_blocks(60, 2) == 1);
  CHECK(pixel_channel_blocks(4, 2) == 1);
  CHECK(pixel_channel_blocks(3, 2) == 0);  // too few blocks to share: the tiles are shared too
  PixelsConfig bad = pixels_fallback_config(y, avx2);
  bad.channel_blocks = -1;
  CHECK_THROWS_WITH(schedule_conv2d_nchwc_pixels(y, bad), Catch::Contains("0 blocks (no slices) or more"));
}

TEST_CASE("pixel tiles pay where 16 registers leave a 7-wide row's last tile too few accumulators",
          "[ops][conv2d]") {
  Target avx2_target = Target::parse("llvm_cpu -isa=avx2"), avx512_target = Target::parse("llvm_cpu -isa=avx512");
  const CpuDescription& avx2 = avx2_target.cpu();
  const CpuDescription& avx512 = avx512_target.cpu();
  CHECK(pixel_tiles_pay(7, 16, avx2));       // 4 + 3 columns: 6 accumulators in the last
  CHECK_FALSE(pixel_tiles_pay(14, 16, avx2));  // 5 + 5 + 4: 8, enough
  CHECK_FALSE(pixel_tiles_pay(28, 16, avx2));  // wider layers run in fused blocks
  CHECK_FALSE(pixel_tiles_pay(7, 32, avx512));  // 32 registers: the whole row is one tile
}

TEST_CASE("conv2d_nchwc_pixels takes 1x1 ungrouped kernels only", "[ops][conv2d]") {
  Tensor x = placeholder({1, 2, 7, 7, 8}, DataType::float32(), "x");
  CHECK_THROWS_WITH(conv2d_nchwc_pixels(x, placeholder({1, 2, 3, 3, 8, 16}, DataType::float32(), "k3")),
                    Catch::Contains("1x1") && Catch::Contains("use conv2d_nchwc"));
  CHECK_THROWS_WITH(conv2d_nchwc_pixels(x, placeholder({1, 1, 1, 1, 8, 16}, DataType::float32(), "kg")),
                    Catch::Contains("ungrouped"));
}
