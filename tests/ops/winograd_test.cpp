// The Winograd convolution: its tensor expression and its compiled default schedule against a
// plain loop reference (F(2×2, 3×3) and F(4×4, 3×3), image sizes that leave partial tiles, batch 2,
// with and without padding), the GEMM's channel slices, the rules choosing the tile, the chunks
// and the slices, and its error messages.
#include <functional>

#include "ops/build.h"
#include "ops/conv2d_winograd.h"
#include "ops/layout_transform.h"
#include "ops/op_schedule.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "tests/ops/ops_test_util.h"
#include "tests/ops/reference_ops.h"

using namespace tessel;
using namespace tessel::ops;
using tessel::test::ConvGeometry;

namespace {

ConvGeometry geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t pad) {
  ConvGeometry g{n, c, h, w, oc, 3, 3, {}};
  g.p.padding = {pad, pad};
  return g;
}

const ConvGeometry kCases[] = {
    geometry(1, 8, 7, 7, 16, 1),   // ResNet's 7×7: partial tiles at the bottom and right
    geometry(2, 16, 9, 6, 8, 1),   // batch 2, unequal sides
    geometry(1, 8, 10, 11, 16, 0), // no padding
};

struct Case {
  Tensor x, w, y;  // NCHW data, OIHW kernel placeholders; y the NCHW output through layout transforms
  Tensor u;        // the transformed weights' placeholder
  NDArray xv, wv, uv;
  std::vector<float> expected;
};

Case make_case(const ConvGeometry& g, int64_t m, int64_t ib, int64_t ob) {
  Case c;
  c.x = placeholder({g.n, g.c, g.h, g.w}, DataType::float32(), "x");
  c.w = placeholder({g.oc, g.c, 3, 3}, DataType::float32(), "w");
  c.u = placeholder({m + 2, m + 2, g.oc / ob, g.c, ob}, DataType::float32(), "u");
  c.xv = test::random_array(c.x.shape(), 1);
  c.wv = test::random_array(c.w.shape(), 2);
  c.uv = winograd_weights(c.wv, m, ob);
  c.expected = test::reference_conv2d(g, test::to_vector(c.xv), test::to_vector(c.wv));
  c.y = nchwc_to_nchw(conv2d_winograd_nchwc(nchw_to_nchwc(c.x, ib), c.u, g.p.padding, m));
  return c;
}

}  // namespace

TEST_CASE("conv2d_winograd computes the 3x3 convolution for tiles 2 and 4", "[ops][winograd]") {
  for (int64_t m : {2, 4})
    for (const ConvGeometry& g : kCases) {
      INFO("m = " << m << ", input " << g.n << "x" << g.c << "x" << g.h << "x" << g.w);
      Case c = make_case(g, m, 4, 8);
      test::check_definition(c.y, {{c.x, c.xv}, {c.u, c.uv}}, c.expected, 1e-4);
    }
}

namespace {

// The kernel alone, scheduled by `schedule`, on c's data blocked here as the layout pass feeds it;
// its output in NCHW.
std::vector<float> run_kernel(const Case& c, const ConvGeometry& g, int64_t m, int64_t ib, int64_t ob,
                              const Target& target, const std::function<Schedule(const Tensor&)>& schedule) {
  Tensor xb = placeholder({g.n, g.c / ib, g.h, g.w, ib}, DataType::float32(), "xb");
  Tensor yb = conv2d_winograd_nchwc(xb, c.u, g.p.padding, m);
  NDArray xbv = NDArray::empty(xb.shape(), DataType::float32());
  const float* x = c.xv.data_as<float>();
  float* blocked = xbv.data_as<float>();
  int64_t in_plane = g.h * g.w, out_plane = g.out_h() * g.out_w();
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int64_t i = 0; i < in_plane; ++i)
        blocked[(((n * g.c + ch) / ib) * in_plane + i) * ib + ch % ib] = x[(n * g.c + ch) * in_plane + i];
  NDArray out = NDArray::empty(yb.shape(), DataType::float32());
  NDArray u = c.uv;
  build(schedule(yb), {xb, c.u, yb}, "winograd", target)->run({&xbv, &u, &out});
  std::vector<float> got(out.numel());
  const float* y = out.data_as<float>();
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t oc = 0; oc < g.oc; ++oc)
      for (int64_t i = 0; i < out_plane; ++i)
        got[(n * g.oc + oc) * out_plane + i] = y[(((n * g.oc + oc) / ob) * out_plane + i) * ob + oc % ob];
  return got;
}

}  // namespace

TEST_CASE("conv2d_winograd compiled with its default schedule matches the reference", "[ops][winograd]") {
  set_num_threads(2);
  const int64_t ib = 8, ob = 16;
  for (const Target& target : test::runnable_cpu_targets())
    for (int64_t m : {2, 4}) {
      const ConvGeometry& g = kCases[0];
      Case c = make_case(g, m, ib, ob);
      INFO(target.key() << ", m = " << m);
      std::vector<float> got = run_kernel(c, g, m, ib, ob, target, [&](const Tensor& y) { return default_schedule(y, target); });
      CHECK(test::max_abs_diff(got, c.expected) <= 1e-4);
    }
}

TEST_CASE("conv2d_winograd computed per chunk of output tile rows matches the reference", "[ops][winograd]") {
  set_num_threads(2);
  const int64_t ib = 8, ob = 16;
  Target target = Target::host();
  // 7x7 (4 tile rows of 2: chunks of 1 and 2, a partial last tile) and batch 2 at 9x6 (5 of 2)
  for (const ConvGeometry& g : {kCases[0], kCases[1]})
    for (int64_t m : {2, 4}) {
      Case c = make_case(g, m, g.c == 8 ? ib : 16, ob / 2);
      Tensor y = conv2d_winograd_nchwc(placeholder({g.n, 1, g.h, g.w, g.c}, DataType::float32(), "x"), c.u, g.p.padding, m);
      for (int64_t k : winograd_chunk_choices(y)) {
        INFO("m = " << m << ", " << g.n << "x" << g.h << "x" << g.w << ", chunks of " << k << " tile rows");
        WinogradConfig config = winograd_fallback_config(y, target);
        config.chunk_tile_rows = k;
        std::vector<float> got = run_kernel(c, g, m, g.c == 8 ? ib : 16, ob / 2, target,
                                            [&](const Tensor& out) { return schedule_conv2d_winograd(out, config); });
        CHECK(test::max_abs_diff(got, c.expected) <= 1e-4);
      }
    }
  Case c = make_case(kCases[0], 2, ib, ob / 2);
  Tensor y = conv2d_winograd_nchwc(placeholder({1, 1, 7, 7, 8}, DataType::float32(), "x"), c.u, {1, 1}, 2);
  CHECK(winograd_chunk_choices(y) == std::vector<int64_t>{1, 2});
  WinogradConfig three = winograd_fallback_config(y, target);
  three.chunk_tile_rows = 3;
  CHECK_THROWS_WITH(schedule_conv2d_winograd(y, three), Catch::Contains("use 0 (none) or a divisor of the output's tile rows"));
}

TEST_CASE("conv2d_winograd with the GEMM's channels in slices outside its register tiles matches the reference",
          "[ops][winograd]") {
  set_num_threads(2);
  const int64_t ib = 16, ob = 16;
  const ConvGeometry g = geometry(1, 64, 7, 7, 32, 1);  // 16 tiles of 2x2: register tiles of 3 leave a partial one
  Case c = make_case(g, 2, ib, ob);
  Tensor y = conv2d_winograd_nchwc(placeholder({1, 4, 7, 7, 16}, DataType::float32(), "x"), c.u, {1, 1}, 2);
  for (const Target& target : test::runnable_cpu_targets())
    for (int64_t slice : {16, 32})
      for (int64_t k_unroll : {4, 8})
        for (int64_t chunk : {0, 2}) {
          INFO(target.key() << ", slices of " << slice << ", k_unroll " << k_unroll << ", tile-row chunks " << chunk);
          WinogradConfig config = winograd_fallback_config(y, target);
          config.rows = 3;
          config.k_unroll = k_unroll;
          config.unroll_k = k_unroll == 4;
          config.chunk_tile_rows = chunk;
          config.channel_slice = slice;
          std::vector<float> got =
              run_kernel(c, g, 2, ib, ob, target, [&](const Tensor& out) { return schedule_conv2d_winograd(out, config); });
          CHECK(test::max_abs_diff(got, c.expected) <= 1e-4);
        }
  WinogradConfig bad = winograd_fallback_config(y, Target::host());
  bad.k_unroll = 4;
  for (int64_t slice : {24, 6, -16}) {
    bad.channel_slice = slice;  // 24 does not divide 64, 6 is no multiple of 4
    CHECK_THROWS_WITH(schedule_conv2d_winograd(y, bad),
                      Catch::Contains("use 0 (none) or a multiple of k_unroll dividing the channels"));
  }
}

TEST_CASE("Winograd channel slices: 32 channels where U is prefetched, the stages are whole and the tiles take "
          "several register tiles",
          "[ops][winograd]") {
  WinogradConfig config;
  config.rows = 6;
  config.k_unroll = 4;
  CHECK(winograd_channel_slice(512, 16, config) == 0);  // no prefetch: slices were slower (Zen 5)
  config.prefetch_bytes = 2048;
  CHECK(winograd_channel_slice(512, 16, config) == 32);  // ResNet-18's 7x7 layers: 3 register tiles
  CHECK(winograd_channel_slice(256, 49, config) == 32);
  CHECK(winograd_channel_slice(512, 6, config) == 0);  // one register tile: nothing to share a slice
  CHECK(winograd_channel_slice(32, 16, config) == 0);  // one slice
  CHECK(winograd_channel_slice(48, 16, config) == 0);  // 32 does not divide the channels
  config.k_unroll = 3;
  CHECK(winograd_channel_slice(96, 16, config) == 0);  // nor does 3 divide 32
  config.k_unroll = 4;
  config.chunk_tile_rows = 1;
  CHECK(winograd_channel_slice(512, 16, config) == 0);  // tile-row chunks keep V and M in L2
}

TEST_CASE("Winograd chunks: the fewest tile rows whose transforms fit in L2 beside the weights, in equal shares",
          "[ops][winograd]") {
  Target host = Target::host();
  auto chunk = [&](WinogradShape shape, int64_t l2, int threads) {
    CpuDescription cpu = host.cpu();
    cpu.l2_bytes = l2;
    cpu.threads = threads;
    return winograd_chunk_tile_rows(winograd_instance(shape, host).output, cpu);
  };
  // ResNet-18's C2 by F(4x4): U 590 KB, a tile row's V and M 258 KB, 14 tile rows
  CHECK(chunk({1, 64, 56, 56, 64, 1, 4}, 1 << 20, 1) == 1);
  CHECK(chunk({1, 64, 56, 56, 64, 1, 4}, 1 << 20, 2) == 1);
  CHECK(chunk({1, 64, 56, 56, 64, 1, 4}, 512 << 10, 1) == 0);  // U alone outweighs L2
  CHECK(chunk({1, 64, 56, 56, 64, 1, 4}, 8 << 20, 3) == 0);    // 14 tile rows: no equal shares for 3
  CHECK(chunk({1, 128, 28, 28, 128, 1, 4}, 1 << 20, 1) == 0);  // U 2.4 MB
}

TEST_CASE("winograd_tile: 4 from 49 tiles of 4x4, else 2 from 16 tiles of 2x2, direct below 64 channels",
          "[ops][winograd]") {
  CHECK(winograd_tile(64, 64, 56, 56) == 4);
  CHECK(winograd_tile(128, 128, 28, 28) == 4);  // 49 tiles of 4x4
  CHECK(winograd_tile(256, 256, 14, 14) == 2);  // 16 tiles of 4x4, 49 of 2x2
  CHECK(winograd_tile(512, 512, 7, 7) == 2);
  CHECK(winograd_tile(64, 64, 5, 5) == 0);   // 9 tiles of 2x2
  CHECK(winograd_tile(32, 64, 56, 56) == 0);  // too few channels to have been measured
}

TEST_CASE("conv2d_winograd rejects what it cannot compute, saying what to use", "[ops][winograd][errors]") {
  Tensor x = placeholder({1, 2, 7, 7, 4}, DataType::float32(), "x");
  CHECK_THROWS_WITH(conv2d_winograd_nchwc(x, placeholder({5, 5, 1, 8, 8}, DataType::float32(), "u"), {1, 1}, 3),
                    Catch::Contains("tile 3 is not supported; use 2 or 4"));
  CHECK_THROWS_WITH(conv2d_winograd_nchwc(x, placeholder({4, 4, 1, 6, 8}, DataType::float32(), "u"), {1, 1}, 2),
                    Catch::Contains("must be [4, 4, O/ob, 8, ob]"));
  NDArray five = NDArray::zeros({8, 8, 5, 5}, DataType::float32());
  CHECK_THROWS_WITH(winograd_weights(five, 2, 8), Catch::Contains("[O, I, 3, 3]"));
}
