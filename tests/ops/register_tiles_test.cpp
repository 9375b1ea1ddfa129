// The default schedules' register tiles fit the target's register file: on every CPU ISA and every
// reference workload, the accumulators of a tile plus the vectors its inner step loads (and one
// broadcast) never exceed the vector registers, and GEMM tiles keep enough independent
// accumulators to hide the FMA latency. The blocked layouts use the target's vector width.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <string>

#include "datasets/workloads.h"
#include "ops/conv2d_nchwc.h"
#include "ops/cpu_tiles.h"
#include "ops/depthwise_conv2d.h"
#include "ops/gemm.h"
#include "ops/workload_ops.h"
#include "tests/ops/ops_test_util.h"

using namespace tessel;
using namespace tessel::ops;

namespace {

// Registers a tile of `tile_vectors` accumulators needs with `operand_vectors` loaded per step.
void check_fits(const CpuDescription& cpu, int64_t tile_vectors, int64_t operand_vectors) {
  INFO(tile_vectors << " accumulators + " << operand_vectors << " operands + 1 broadcast, " << cpu.vector_registers
                    << " registers");
  CHECK(tile_vectors >= 1);
  CHECK(tile_vectors + operand_vectors + 1 <= cpu.vector_registers);
}

// The window tile of `output` (blocked, the block vectorized) under `config` fits the registers
// beside `live_kernel_vectors` operand vectors per block vector (depthwise: the kernel columns an
// unrolled kernel width keeps live); a tile spanning channel blocks holds each block's vectors.
void check_window_fits(const CpuDescription& cpu, const Tensor& output, const WindowConfig& config,
                       int64_t live_kernel_vectors = 1) {
  int64_t block = output.shape()[4];
  CHECK(block % float_lanes(cpu) == 0);
  int64_t lanes = config.block_lanes > 0 ? std::min(config.block_lanes, block) : block;
  int64_t column_vectors = config.channel_blocks * float_vectors(cpu, lanes);
  check_fits(cpu, config.rows * config.columns * column_vectors, column_vectors * live_kernel_vectors);
}

}  // namespace

TEST_CASE("GEMM register tiles fit the register file and hide the FMA latency", "[ops][tiles]") {
  for (const Target& target : test::cpu_targets())
    for (int64_t m : {1024, 256, 100, 13, 5}) {
      const CpuDescription& cpu = target.cpu();
      OpInstance op = gemm_instance({m, 512, 256}, target);
      GemmConfig config = gemm_fallback_config(op.output, target);
      INFO(target.key() << " M=" << m << ": " << config.rows << " x " << config.panel);
      CHECK(config.panel % float_lanes(cpu) == 0);
      int64_t vectors = float_vectors(cpu, config.panel);
      check_fits(cpu, config.rows * vectors, vectors);
      // M = 13 has no divisor but 1 and 13: only partial tiles hide the latency there.
      if (m != 13 || partial_register_tiles(cpu))
        CHECK((config.rows * vectors >= cpu.min_accumulators() || config.rows == m));
    }
}

TEST_CASE("conv2d and depthwise register tiles fit the register file", "[ops][tiles]") {
  for (const Target& target : test::cpu_targets()) {
    for (const auto& w : resnet18_conv2d_workloads()) {
      INFO(target.key() << " " << w.name);
      OpInstance op = conv2d_instance(w.shape, target);
      check_window_fits(target.cpu(), op.output, conv2d_fallback_config(op.output, target));
    }
    for (const auto& w : mobilenet_depthwise_workloads())
      for (int64_t block : {int64_t{0}, int64_t{16}}) {  // the operator's own block, a producer's 16
        INFO(target.key() << " " << w.name << " block " << block);
        DepthwiseShape shape = w.shape;
        shape.block = block;
        OpInstance op = depthwise_instance(shape, target);
        check_window_fits(target.cpu(), op.output, depthwise_fallback_config(op.output, target), w.shape.k);
      }
  }
}

TEST_CASE("a depthwise tile over a block of two vectors takes one at a time where that holds more accumulators",
          "[ops][tiles]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2"), avx512 = Target::parse("llvm_cpu -isa=avx512");
  // AVX2, a 16-channel block beside the six kernel vectors of a 3-wide window: whole, 9 accumulators
  // hold 4 columns of two vectors (a divisor of OW: 1 at 7, 2 at 14, 4 at 28 and 56); one vector
  // at a time, 12 hold 7 columns at 7, 14 and 28, 8 at 56.
  for (auto [ow, lanes, columns] : std::vector<std::array<int64_t, 3>>{{7, 8, 7}, {14, 8, 7}, {28, 0, 4}, {56, 0, 4}}) {
    INFO("OW " << ow);
    OpInstance op = depthwise_instance({1, 32, ow, ow, 3, 1, 1, 16}, avx2);
    WindowConfig config = depthwise_fallback_config(op.output, avx2);
    CHECK(config.block_lanes == lanes);
    CHECK(config.columns == columns);
    // AVX-512: a 16-channel block is one vector
    CHECK(depthwise_fallback_config(depthwise_instance({1, 32, ow, ow, 3, 1, 1, 16}, avx512).output, avx512)
              .block_lanes == 0);
  }
  OpInstance op = depthwise_instance({1, 32, 7, 7, 3, 1, 1, 16}, avx2);
  WindowConfig config = depthwise_fallback_config(op.output, avx2);
  config.block_lanes = 3;
  CHECK_THROWS_WITH(schedule_depthwise_conv2d(op.output, config), Catch::Contains("lanes per register tile"));
}

TEST_CASE("window tiles divide the output width unless, with 16 registers, the divisor leaves a quarter of the columns",
          "[ops][tiles]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2"), avx512 = Target::parse("llvm_cpu -isa=avx512");
  // (OW, limit, latency tile) -> AVX2 columns: a divisor of OW of at least three quarters of the
  // limit, else the fewest tiles of at most `limit`, balanced, or one column fewer where that
  // leaves a last tile nearer the latency tile; AVX-512: a divisor.
  for (auto [ow, limit, latency, avx2_columns, avx512_columns] : std::vector<std::array<int64_t, 5>>{
           {7, 6, 4, 4, 1},     // 4 + 3: no divisor up to 6 but 1; 3 + 3 + 1 would be shorter than the latency tile
           {14, 6, 4, 5, 2},    // 5 + 5 + 4
           {28, 6, 4, 6, 4},    // 6 × 4 + 4: the divisor 4 would leave 4 of 12 accumulators unused
           {56, 6, 4, 6, 4},    // 6 × 9 + 2: 5 × 11 + 1 would wait longer on its last tile
           {112, 6, 4, 6, 4},   // 6 × 18 + 4
           {49, 6, 4, 5, 1},    // 5 × 9 + 4, not 6 × 8 + 1 (a 7 × 7 layer's pixels)
           {49, 6, 6, 6, 1},    // the same where tiles of 5 would not hide the latency
           {12, 6, 4, 6, 6},    // the limit divides
           {10, 6, 4, 5, 5},    // a divisor of three quarters of the limit
           {56, 13, 8, 12, 8},  // 12 × 4 + 8
           {28, 13, 8, 10, 7},  // 10 + 10 + 8
           {14, 13, 8, 7, 7}}) {
    INFO("OW " << ow << ", at most " << limit << " columns, " << latency << " hide the latency");
    CHECK(register_tile_size(ow, limit, latency, avx2.cpu()) == avx2_columns);
    CHECK(register_tile_size(ow, limit, latency, avx512.cpu()) == avx512_columns);
  }
}

TEST_CASE("narrow k x k conv2d tiles on 16 registers stack two rows where one row leaves accumulators idle",
          "[ops][tiles]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2"), avx512 = Target::parse("llvm_cpu -isa=avx512");
  auto tile = [](const char* name, const Target& target) {
    for (const auto& w : resnet18_conv2d_workloads())
      if (w.name == name) {
        OpInstance op = conv2d_instance(w.shape, target);
        WindowConfig config = conv2d_fallback_config(op.output, target);
        check_window_fits(target.cpu(), op.output, config);
        return std::pair<int64_t, int64_t>{config.rows, config.columns};
      }
    FAIL("no workload " << name);
    return std::pair<int64_t, int64_t>{0, 0};
  };
  // Two-vector blocks under AVX2 leave 6 columns of budget: 7 wide, 4 + 3 columns (8
  // accumulators) become 2 rows x 3 (12); 14 wide, 5 + 5 + 4 (10) become 2 x 3 as well.
  CHECK(tile("C10", avx2) == std::pair<int64_t, int64_t>{2, 3});
  CHECK(tile("C7", avx2) == std::pair<int64_t, int64_t>{2, 3});
  // 28 wide and wider keep one row of the budget's 6 columns; 1x1 kernels keep their rule.
  CHECK(tile("C4", avx2).first == 1);
  CHECK(tile("C1", avx2).first == 1);
  CHECK(tile("C11", avx2).first == 1);
  // On 32 registers the 7-wide row is a whole tile.
  CHECK(tile("C10", avx512) == std::pair<int64_t, int64_t>{1, 7});
}

TEST_CASE("conv2d tiles span several output blocks where each broadcast would feed one FMA of few lanes",
          "[ops][tiles]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2"), avx512 = Target::parse("llvm_cpu -isa=avx512");
  auto default_blocks = [](int64_t out_channels, const Target& target) {
    OpInstance op = conv2d_instance({1, 96, 56, 56, out_channels, 1, 1, 1, 0}, target);
    return conv2d_fallback_config(op.output, target).channel_blocks;
  };
  // MobileNet-V2's 24-channel 1x1 layer: 3 blocks of 8 on AVX2, 3 columns (9 accumulators hide the
  // latency; 3 + 3 + 1 = 13 registers, 3 spare) with a partial last tile (56 = 18 x 3 + 2).
  OpInstance op = conv2d_instance({1, 96, 56, 56, 24, 1, 1, 1, 0}, avx2);
  WindowConfig config = conv2d_fallback_config(op.output, avx2);
  CHECK(op.output.shape()[4] == 8);
  CHECK(config.channel_blocks == 3);
  CHECK(config.columns == 3);
  check_window_fits(avx2.cpu(), op.output, config);
  // AVX-512's FMAs broadcast from memory, but a block of 10 floats fills 10 of 16 lanes: 2 blocks
  // share each broadcast, 7 columns each (14 accumulators). Two-vector blocks already share each
  // broadcast, and so do the blocks of a vector and a half that 24 channels take (16 + 8 lanes);
  // 40 channels are 5 blocks, which no group of 2 or 3 divides.
  OpInstance partial = conv2d_instance({1, 96, 56, 56, 20, 1, 1, 1, 0}, avx512);
  WindowConfig partial_config = conv2d_fallback_config(partial.output, avx512);
  CHECK(partial.output.shape()[4] == 10);
  CHECK(partial_config.channel_blocks == 2);
  CHECK(partial_config.columns == 7);
  CHECK(conv2d_instance({1, 96, 56, 56, 24, 1, 1, 1, 0}, avx512).output.shape()[4] == 24);
  CHECK(default_blocks(24, avx512) == 1);
  // Halves only where as many lanes stay busy: 56 channels in blocks of 14 (7/8), not of 8 (1/2).
  CHECK(conv2d_instance({1, 96, 56, 56, 56, 1, 1, 1, 0}, avx512).output.shape()[4] == 14);
  CHECK(conv2d_instance({1, 96, 56, 56, 40, 1, 1, 1, 0}, avx512).output.shape()[4] == 10);
  check_fits(avx512.cpu(), partial_config.channel_blocks * partial_config.columns, partial_config.channel_blocks);
  CHECK(default_blocks(32, avx512) == 1);
  CHECK(default_blocks(48, avx512) == 1);
  CHECK(default_blocks(32, avx2) == 1);
  CHECK(default_blocks(40, avx2) == 1);
  CHECK(default_blocks(72, avx2) == 3);
}

TEST_CASE("16-register conv2d defaults on one thread run row tiles outside channel blocks where the kernel stays in L2",
          "[ops][tiles]") {
  // A Zen 3 core's 512 KB L2: C1-C5 and C8 read inputs larger than their kernels; C6, C7, C9, C10
  // and C12 have kernels of more than 512 KB, and C11's 512 KB leave no room for its input rows.
  Target zen3 = Target::parse("llvm_cpu -isa=avx2 -l2=512K -threads=1");
  std::set<std::string> rows_outer = {"C1", "C2", "C3", "C4", "C5", "C8"};
  for (const auto& w : resnet18_conv2d_workloads()) {
    INFO(w.name);
    OpInstance op = conv2d_instance(w.shape, zen3);
    CHECK(conv2d_fallback_config(op.output, zen3).rows_outer == (rows_outer.count(w.name) > 0));
  }
  // The 32-register schedules keep the order they were measured with.
  Target avx512 = Target::parse("llvm_cpu -isa=avx512 -l2=512K -threads=1");
  CHECK_FALSE(conv2d_fallback_config(conv2d_instance(resnet18_conv2d_workloads()[2].shape, avx512).output, avx512)
                  .rows_outer);
}

TEST_CASE("conv2d defaults on several threads run row tiles outside where the kernel is at most twice the input",
          "[ops][tiles]") {
  // C6's kernel is 1.5 times its input; C7's 2.9, C11's 2.6 and C9, C10 and C12's 12-94 times.
  std::set<std::string> rows_outer = {"C1", "C2", "C3", "C4", "C5", "C6", "C8"};
  for (const char* text : {"llvm_cpu -isa=avx2 -threads=2", "llvm_cpu -isa=avx512 -threads=3"}) {
    Target target = Target::parse(text);
    for (const auto& w : resnet18_conv2d_workloads()) {
      INFO(text << " " << w.name);
      OpInstance op = conv2d_instance(w.shape, target);
      CHECK(conv2d_fallback_config(op.output, target).rows_outer == (rows_outer.count(w.name) > 0));
    }
  }
}

TEST_CASE("on 32 registers, a 1x1 convolution whose row fits one tile stacks rows up to the accumulator cap",
          "[ops][tiles]") {
  Target avx512 = Target::parse("llvm_cpu -isa=avx512 -threads=1");
  struct Case {
    Conv2dShape shape;
    int64_t rows;
  };
  // MobileNet-V2's 960->160 at 7x7 (blocks of 32: 7 columns x 2 vectors a row), a 16-channel
  // output at 7x7 (one vector: 4 rows), the 14-wide rows that fill the cap alone, and a 3x3
  for (Case c : {Case{{1, 960, 7, 7, 160, 1, 1, 1, 0}, 2}, Case{{1, 64, 7, 7, 16, 1, 1, 1, 0}, 4},
                 Case{{1, 576, 14, 14, 96, 1, 1, 1, 0}, 1}, Case{{1, 512, 7, 7, 512, 3, 3, 1, 1}, 1}}) {
    OpInstance op = conv2d_instance(c.shape, avx512);
    WindowConfig config = conv2d_fallback_config(op.output, avx512);
    INFO(shape_str(op.output.shape()) << ": " << config.rows << " x " << config.columns);
    CHECK(config.rows == c.rows);
    check_window_fits(avx512.cpu(), op.output, config);
  }
}

TEST_CASE("16-register 1x1 convolutions whose kernel slice outgrows half of L1 run in reduction chunks of a quarter",
          "[ops][tiles]") {
  Target avx2 = Target::parse("llvm_cpu -isa=avx2 -threads=1 -l1=32K");
  auto chunk = [&](const Conv2dShape& shape) {
    OpInstance op = conv2d_instance(shape, avx2);
    return conv2d_fallback_config(op.output, avx2).reduce_chunk;
  };
  // 16-float output blocks of 8-channel input blocks: 512 bytes of kernel per input block, so
  // chunks of at most 16 blocks dividing the 72, 120 and 40 blocks; K = 256 is a 16 KB slice, half
  // of a 32 KB L1, and runs whole, as does every 3x3 layer. The outputs' blocks fit half of L1.
  CHECK(chunk({1, 576, 14, 14, 96, 1, 1, 1, 0}) == 12);
  CHECK(chunk({1, 960, 7, 7, 320, 1, 1, 1, 0}) == 15);
  CHECK(chunk({1, 320, 7, 7, 1280, 1, 1, 1, 0}) == 10);
  // 37 blocks divide into chunks of 1 only: chunks of 16 instead, the last of 5.
  CHECK(chunk({1, 296, 14, 14, 64, 1, 1, 1, 0}) == 16);
  CHECK(chunk({1, 256, 14, 14, 64, 1, 1, 1, 0}) == 0);
  CHECK(chunk({1, 576, 14, 14, 96, 3, 3, 1, 1}) == 0);
  // A 28x28 output block (49 KB) would not fit L1 beside the kernel chunk.
  CHECK(chunk({1, 576, 28, 28, 96, 1, 1, 1, 0}) == 0);
  // The 32-register schedules stay as measured and pinned.
  Target avx512 = Target::parse("llvm_cpu -isa=avx512 -threads=1");
  OpInstance wide = conv2d_instance({1, 960, 7, 7, 320, 1, 1, 1, 0}, avx512);
  CHECK(conv2d_fallback_config(wide.output, avx512).reduce_chunk == 0);
}
