// The schedule templates: on small workloads, configurations covering every choice of every knob
// (and the whole space of a tiny depthwise layer) lower, compile and compute what the reference
// tensor-expression interpreter computes; the default configuration is the ops/ default schedule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "backends/backend.h"
#include "ir/equality.h"
#include "ir/printer.h"
#include "ir/te_interpreter.h"
#include "ops/block_workload.h"
#include "passes/lower/lower.h"
#include "search/task/task.h"
#include "support/registry.h"
#include "tests/search/search_test_util.h"

using namespace tessel;
using namespace tessel::search;

namespace {

const ConfigSpace& knobs_of(const Task& task) { return task.knob_space("the template tests"); }
Config default_config(const Task& task) { return knobs_of(task).get(task.default_candidate()); }

// The default configuration with one knob changed, for every knob and choice; then `extra`
// evenly spaced indices.
std::vector<Config> covering_configs(const ConfigSpace& space, const Config& base, uint64_t extra) {
  std::vector<Config> out;
  for (size_t k = 0; k < space.knobs().size(); ++k)
    for (size_t c = 0; c < space.knobs()[k].size(); ++c) {
      std::vector<size_t> choices = base.choices();
      choices[k] = c;
      out.push_back(space.get(space.encode(choices)));
    }
  for (uint64_t i = 0; i < extra; ++i) out.push_back(space.get(i * space.size() / extra));
  return out;
}

std::vector<Config> all_configs(const ConfigSpace& space) {
  std::vector<Config> out;
  for (uint64_t i = 0; i < space.size(); ++i) out.push_back(space.get(i));
  return out;
}

// Compiles every configuration and compares its output with the interpreter's.
void check_configs(const Task& task, const std::vector<Config>& configs) {
  Program reference_program = task.space_template().default_program();
  std::vector<std::pair<Tensor, NDArray>> inputs;
  std::vector<NDArray> arrays;
  uint64_t seed = 7;
  for (const Tensor& t : reference_program.inputs) {
    arrays.push_back(NDArray::random_uniform(t.shape(), t.dtype(), seed++));
    inputs.emplace_back(t, arrays.back());
  }
  NDArray expected = evaluate(reference_program.output, inputs);
  auto backend = Registry<Backend>::instance().create("llvm_cpu");
  for (const Config& config : configs) {
    INFO(task.workload().name << " config " << config.describe());
    auto kernel = backend->compile(task.lower(config));
    std::vector<NDArray> args = arrays;
    args.push_back(NDArray::zeros(expected.shape(), expected.dtype()));
    std::vector<NDArray*> pointers;
    for (NDArray& a : args) pointers.push_back(&a);
    kernel->run(pointers);
    CHECK(max_abs_diff(args.back(), expected) <= 1e-4);
  }
}

}  // namespace

TEST_CASE("gemm template configurations compute the product", "[search][templates]") {
  Task task = Task::create(test::kTinyGemm, "template");
  check_configs(task, covering_configs(knobs_of(task), default_config(task), 12));
}

TEST_CASE("template spaces derive their choices from the target", "[search][templates]") {
  Target avx512 = Target::parse("llvm_cpu -isa=avx512"), avx2 = Target::parse("llvm_cpu -isa=avx2");
  // AVX-512: dividing register tiles only, as the recorded sets were recorded in.
  CHECK(Task::create(test::kTinyGemm, "template", nullptr, avx512).space().size() == 144);
  CHECK(Task::create("depthwise:1,16,4,4,3,1,1", "template", nullptr, avx512).space().size() == 72);
  // AVX2: panels of half a vector too (4 floats), and a partial 3-row tile [2, 1, 3].
  Task gemm = Task::create(test::kTinyGemm, "template", nullptr, avx2);
  CHECK(knobs_of(gemm).knob("panel").choices == std::vector<nlohmann::json>{4, 8});
  CHECK(knobs_of(gemm).knob("tile_m").index_of({2, 1, 3}) == 6);
  CHECK(gemm.space().size() == 336);
  // Columns beyond half the registers are not offered: C6's 28 columns split at most 8 wide on
  // AVX2 (with 3, 5, 6 and 7 as partial tiles), 14 on AVX-512.
  Task c6_avx2 = Task::create("C6", "template", nullptr, avx2), c6_avx512 = Task::create("C6", "template", nullptr, avx512);
  const Knob& avx2_columns = knobs_of(c6_avx2).knob("tile_ow");
  CHECK(avx2_columns.choices.back() == nlohmann::json{4, 8});
  CHECK(avx2_columns.index_of({5, 6}) > 0);
  CHECK(knobs_of(c6_avx512).knob("tile_ow").choices.back() == nlohmann::json{2, 14});
  // The widest column tile follows the target, not the default's choice: AVX2's depthwise default
  // is 8 columns (its 3 kernel vectors stay live), yet the space still offers the 14 it offered when
  // the default was 14, so records measured over it keep their numbering.
  Task d1 = Task::create("D1", "template", nullptr, avx2);
  CHECK(default_config(d1).split("tile_ow") == std::vector<int64_t>{14, 8});
  CHECK(knobs_of(d1).knob("tile_ow").index_of({8, 14}) > 0);
  // A tile spanning output channel blocks is the last knob, one block first, so records measured
  // before it existed keep their index; only where the default groups blocks (24 channels: 3
  // blocks of 8 on AVX2; 20 channels, 2 blocks of 10 on AVX-512).
  Task c24 = Task::create("conv2d:1,96,56,56,24,1,1,0", "template", nullptr, avx2);
  CHECK(knobs_of(c24).knobs().back().name == "channel_blocks");
  CHECK(knobs_of(c24).knobs().back().choices == std::vector<nlohmann::json>{1, 3});
  CHECK(default_config(c24).get_int("channel_blocks") == 3);
  CHECK(knobs_of(c24).get(0).get_int("channel_blocks") == 1);
  CHECK(knobs_of(c6_avx2).knobs().back().name == "parallel");
  Task c20_avx512 = Task::create("conv2d:1,96,56,56,20,1,1,0", "template", nullptr, avx512);
  CHECK(knobs_of(c20_avx512).knobs().back().choices == std::vector<nlohmann::json>{1, 2});
  CHECK(default_config(c20_avx512).get_int("channel_blocks") == 2);
  CHECK(knobs_of(Task::create("conv2d:1,96,56,56,32,1,1,0", "template", nullptr, avx512)).knobs().back().name !=
        "channel_blocks");
  // Reduction chunks, last and none first likewise, for the 1x1 layers of 16-register CPUs: 576
  // input channels in blocks of 8 under 16-float outputs, chunks of 12 blocks (6 KB of kernel);
  // offered where the default chunks: where the whole kernel slice (36 KB) outgrows half of L1, and
  // not at K = 256.
  Target avx2_l1 = Target::parse("llvm_cpu -isa=avx2 -l1=32K");
  Task c576 = Task::create("conv2d:1,576,14,14,96,1,1,0", "template", nullptr, avx2_l1);
  CHECK(knobs_of(c576).knobs().back().name == "reduce_chunk");
  CHECK(knobs_of(c576).knobs().back().choices == std::vector<nlohmann::json>{0, 12});
  CHECK(default_config(c576).get_int("reduce_chunk") == 12);
  CHECK(knobs_of(c576).get(0).get_int("reduce_chunk") == 0);
  Task c256 = Task::create("conv2d:1,256,14,14,96,1,1,0", "template", nullptr, avx2_l1);
  CHECK(knobs_of(c256).knobs().back().name != "reduce_chunk");
  CHECK(knobs_of(Task::create("conv2d:1,576,14,14,96,1,1,0", "template", nullptr, avx512)).knobs().back().name !=
        "reduce_chunk");
  CHECK(knobs_of(Task::create("conv2d:1,576,14,14,96,3,1,1", "template", nullptr, avx2_l1)).knobs().back().name !=
        "reduce_chunk");
}

TEST_CASE("conv2d template configurations compute the convolution", "[search][templates]") {
  Task task = Task::create("conv2d:1,32,6,6,16,3,1,1", "template");
  check_configs(task, covering_configs(knobs_of(task), default_config(task), 8));
  // AVX2's space also chooses the parallel loop's order.
  Task strided = Task::create("conv2d:1,16,7,7,16,3,2,1", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  CHECK(knobs_of(strided).knob("parallel").choices.size() == 2);
  check_configs(strided, covering_configs(knobs_of(strided), default_config(strided), 4));
  Task blocks24 = Task::create("conv2d:1,16,7,7,24,3,1,1", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  check_configs(blocks24, covering_configs(knobs_of(blocks24), default_config(blocks24), 4));
  // A 1x1 layer in reduction chunks (12 of its 72 input blocks) with every other knob varied.
  Task chunked =
      Task::create("conv2d:1,576,5,7,32,1,1,0", "template", nullptr, Target::parse("llvm_cpu -isa=avx2 -l1=32K"));
  REQUIRE(default_config(chunked).get_int("reduce_chunk") == 12);
  check_configs(chunked, covering_configs(knobs_of(chunked), default_config(chunked), 4));
}

TEST_CASE("a conv2d template's configurations are distinct programs, a 1x1 kernel's too", "[search][templates]") {
  // A 1x1 kernel's kh and kw have one iteration: where they go in the reduction order, and whether
  // they are unrolled, cannot change the program; nor can the input-block loop of 3 channels (C1).
  const std::pair<const char*, const char*> cases[] = {{"conv2d:1,96,14,14,64,1,1,0", "llvm_cpu -isa=avx2 -threads=2"},
                                                       {"conv2d:1,96,14,14,64,1,1,0", "llvm_cpu -isa=avx512 -threads=1"},
                                                       {"conv2d:1,3,14,14,16,3,1,1", "llvm_cpu -isa=avx2 -threads=2"}};
  for (const auto& [workload, target] : cases) {
    Task task = Task::create(workload, "template", nullptr, Target::parse(target));
    std::set<std::string> programs;
    for (const Config& c : all_configs(knobs_of(task))) programs.insert(to_string(task.lower(c)));
    INFO(workload << " for " << target);
    CHECK(programs.size() == task.space().size());
  }
  Task pointwise = Task::create("conv2d:1,96,14,14,64,1,1,0", "template");
  CHECK(knobs_of(pointwise).knob("unroll_kh").size() == 1);
  CHECK(knobs_of(pointwise).knob("reduce_order").size() == 1);
}

TEST_CASE("every configuration of a tiny depthwise layer computes the convolution", "[search][templates]") {
  // On AVX2 or more: 4 row tiles × 4 column tiles (1, 2, 4 and a partial 3) × 2 × 2 × 2.
  Task task = Task::create("depthwise:1,16,4,4,3,1,1", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  CHECK(task.space().size() == 4 * 4 * 2 * 2 * 2);
  check_configs(task, all_configs(knobs_of(task)));
}

TEST_CASE("a depthwise template over a block of two vectors offers one vector at a time", "[search][templates]") {
  // On AVX2, a producer's 16-channel block at 7x7: the default takes 7 columns of one vector.
  Task task = Task::create("depthwise:1,16,7,7,3,1,1,16", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  CHECK(knobs_of(task).knob("block_lanes").choices == std::vector<nlohmann::json>{16, 8});
  CHECK(default_config(task).get_int("block_lanes") == 8);
  check_configs(task, covering_configs(knobs_of(task), default_config(task), 4));
  // AVX-512: the block is one vector, no knob
  Task one = Task::create("depthwise:1,16,7,7,3,1,1,16", "template", nullptr, Target::parse("llvm_cpu -isa=avx512"));
  const std::vector<Knob>& knobs = knobs_of(one).knobs();
  CHECK(std::none_of(knobs.begin(), knobs.end(), [](const Knob& k) { return k.name == "block_lanes"; }));
}

TEST_CASE("every configuration of a pixel-tiled convolution computes it", "[search][templates]") {
  // On AVX2, 49 pixels: tiles of 1 (the only divisor up to 6) and partial ones of 2 to 6, × the
  // parallel order × prefetch or none × slices of none or one of the two input blocks.
  Task task = Task::create("pixels:1,16,7,7,32", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  CHECK(task.space().size() == 6 * 2 * 2 * 2);
  check_configs(task, all_configs(knobs_of(task)));
  // 6 input blocks: slices of 1, 2 and 4 (the last slice partial)
  Task wide = Task::create("pixels:1,48,7,7,32", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  CHECK(wide.space().size() == 6 * 2 * 2 * 4);
  check_configs(wide, covering_configs(knobs_of(wide), default_config(wide), 4));
  CHECK_THROWS_WITH(parse_workload("pixels:1,16,7,7"), Catch::Contains("5 expected (pixels:N,C,H,W,OC)"));
}

TEST_CASE("winograd template configurations compute the convolution", "[search][templates][winograd]") {
  // 7x7 outputs: 16 tiles of 2x2, the last row and column of tiles partial.
  Task task = Task::create("winograd:1,16,7,7,16,1,2", "template", nullptr, Target::parse("llvm_cpu -isa=avx2"));
  check_configs(task, covering_configs(knobs_of(task), default_config(task), 4));
}

TEST_CASE("fused block template configurations compute the chain", "[search][templates][block]") {
  // On AVX2: expansion to 16 channels (one block of two vectors), the depthwise in that block, the
  // projection reading blocks of 8 (a layout transform between); then a 3x3 stem from NCHW; then
  // a block split by channels, each of two shares 16 expanded channels (one block).
  Target avx2 = Target::parse("llvm_cpu -isa=avx2");
  for (const char* workload : {"block:1,8,6,6,8/c1,1,0,16/d3,2,1/c1,1,0,8", "block:1,3,8,8,0/c3,2,1,16/d3,1,1/c1,1,0,8",
                               "block:1,8,6,6,8/c1,1,0,32/d3,2,1/c1,1,0,8/s2"}) {
    Task task = Task::create(workload, "template", nullptr, avx2);
    check_configs(task, covering_configs(knobs_of(task), default_config(task), 4));
  }
}

TEST_CASE("fused block workloads read back as written and refuse bad chains", "[search][templates][block]") {
  std::string text = "block:1,16,112,112,16/c1,1,0,96/d3,2,1/c1,1,0,24";
  WorkloadSpec w = parse_workload(text);
  CHECK(w.op() == "block");
  CHECK("block:" + ops::block_shape_text(w.shape<ops::BlockShape>()) == text);
  CHECK(w.describe() == "N=1 C=16 H=112 W=112 B=16: conv 1x1 S1 P0 ->96, depthwise 3x3 S2 P1, conv 1x1 S1 P0 ->24");
  // 16·96·112² + 9·96·56² + 96·24·56² multiply-adds
  CHECK(w.flops() == 2.0 * (16 * 96 * 112 * 112 + 9 * 96 * 56 * 56 + 96 * 24 * 56 * 56));
  // The key is the computation's: the same chain written with another label has it, another chain not.
  CHECK(w.key() == WorkloadSpec("mine", "block", w.shape<ops::BlockShape>()).key());
  CHECK(w.key() != parse_workload("block:1,16,112,112,0/c1,1,0,96/d3,2,1/c1,1,0,24").key());
  CHECK_THROWS_WITH(parse_workload("block:1,16,112,112,16"),
                    Catch::Contains("0 stages") && Catch::Contains("cK,S,P,OC"));
  CHECK_THROWS_WITH(parse_workload("block:1,16,8,8,3/c1,1,0,8/d3,1,1"), Catch::Contains("block 3 does not divide"));
  CHECK_THROWS_WITH(parse_workload("block:1,16,8,8,16/x1,1,0/c1,1,0,8"), Catch::Contains("stage 'x1,1,0'"));
  CHECK_THROWS_WITH(parse_workload("block:1,16,8,8,16/d3,1/c1,1,0,8"), Catch::Contains("K,S,P"));
  CHECK_THROWS_WITH(parse_workload("block:1,16,2,2,16/d5,1,0/c1,1,0,8"), Catch::Contains("depthwise"));
  // Split by channels: "/sT" after the stages, another computation (the projection summed in
  // shares), so another key.
  std::string shared = text + "/s2";
  WorkloadSpec s2 = parse_workload(shared);
  CHECK("block:" + ops::block_shape_text(s2.shape<ops::BlockShape>()) == shared);
  CHECK(s2.shape<ops::BlockShape>().shares == 2);
  CHECK(s2.describe() == w.describe() + ", in 2 channel shares");
  CHECK(s2.flops() == w.flops());
  CHECK(s2.key() != w.key());
  CHECK_THROWS_WITH(parse_workload("block:1,16,8,8,16/c1,1,0,32/d3,1,1/s2"), Catch::Contains("a last stage of c1,1,0,OC"));
  CHECK_THROWS_WITH(parse_workload("block:1,16,8,8,16/c1,1,0,32/d3,1,1/c1,1,0,8/s3"),
                    Catch::Contains("3 shares do not divide the last stage's 32 input channels"));
  CHECK_THROWS_WITH(parse_workload("block:1,16,8,8,16/c1,1,0,32/d3,1,1/c1,1,0,8/sx"), Catch::Contains("shares"));
}

TEST_CASE("the default configuration is the ops/ default schedule on every CPU target", "[search][templates]") {
  for (const char* isa : {"sse4", "avx2", "avx512"})
    for (const char* workload : {"gemm:64", "gemm:100,48,20", "C6", "C12", "conv2d:1,96,14,14,24,1,1,0", "D3", "D9",
                                 // 1x1 tiles of 28 accumulators on 32 registers (14 wide, 28 wide)
                                 "conv2d:1,384,14,14,96,1,1,0", "conv2d:1,32,28,28,192,1,1,0",
                                 // 2 rows of 7 on 32 registers, a tile the divisor knobs lack
                                 "conv2d:1,160,7,7,960,1,1,0",
                                 "winograd:1,64,14,14,64,1,4", "winograd:1,64,7,7,64,1,2",
                                 // 196 and 49 tiles, which 8 does not divide (ResNet-18's C2 and C6)
                                 "winograd:1,64,56,56,64,1,4", "winograd:1,128,28,28,128,1,4",
                                 // MobileNet-V2's first blocks: a stem from NCHW, an expansion from 16
                                 "block:1,3,224,224,0/c3,2,1,32/d3,1,1/c1,1,0,16",
                                 "block:1,16,112,112,16/c1,1,0,96/d3,2,1/c1,1,0,24",
                                 // MobileNet-V2's 7x7 block as two threads split it
                                 "block:1,160,7,7,32/c1,1,0,960/d3,1,1/c1,1,0,160/s2"}) {
      Target target = Target::parse(std::string("llvm_cpu -isa=") + isa);
      Task task = Task::create(workload, "template", nullptr, target);
      CHECK(task.target() == target);
      LoweredFunc tuned = task.lower(task.default_candidate());
      LoweredFunc ops_default = task.lower_default_program();
      INFO(isa << " " << workload << ": the template's default\n"
               << to_string(tuned) << "\nops' default\n" << to_string(ops_default));
      CHECK(structural_equal(tuned, ops_default));
    }
}

TEST_CASE("unknown workloads and spaces are user errors listing what is valid", "[search][templates]") {
  CHECK_THROWS_WITH(Task::create("C99", "template"), Catch::Contains("C1"));
  CHECK_THROWS_WITH(Task::create("matmul:4", "template"), Catch::Contains("unknown workload kind"));
  CHECK_THROWS_WITH(Task::create("gemm:x", "template"), Catch::Contains("bad gemm size"));
  CHECK_THROWS_WITH(Task::create("gemm:64", "polyhedral-nope"), Catch::Contains("template"));
  CHECK_THROWS_WITH(Task::create("winograd:1,64,7,7", "template"), Catch::Contains("7 expected"));
  CHECK_THROWS_WITH(Task::create("winograd:1,64,7,7,64,1,3", "template"), Catch::Contains("use 2 or 4"));
}
