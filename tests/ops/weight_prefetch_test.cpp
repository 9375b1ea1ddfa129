// Weight prefetch in the default schedules (ops/weight_prefetch.h): a 1x1 conv2d_nchwc and the
// pixel form prefetch their kernel the target's -prefetch bytes ahead in the icb loop, on AVX2 and
// AVX-512 alike; a 3x3 kernel streams into L2 a register tile's slice ahead; -prefetch=0 prefetches
// nothing; the Winograd GEMM prefetches its transformed weights -winograd-prefetch bytes ahead; and
// the hints change no value.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <set>

#include "datasets/workloads.h"
#include "ir/printer.h"
#include "ops/build.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_pixels.h"
#include "ops/conv2d_winograd.h"
#include "ops/op_schedule.h"
#include "ops/workload_ops.h"
#include "passes/lower/lower.h"
#include "tests/ops/ops_test_util.h"

using namespace tessel;
using namespace tessel::ops;

namespace {

std::string lowered(const Schedule& s, const std::vector<Tensor>& args, const Target& target) {
  return to_string(lower(s, args, "kernel", target));
}

std::string lowered_default(const OpInstance& op, const Target& target) {
  return lowered(default_schedule(op.output, target), op.args(), target);
}

// The distinct `intrinsic` statements of a printed function (loop partitioning may copy a loop
// body), each whole (to its "])"), lines the printer wrapped joined with a space.
std::set<std::string> prefetches(const std::string& text, const std::string& intrinsic = "prefetch") {
  std::string joined;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      joined += text[i];
      continue;
    }
    joined += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;  // a wrapped line's indent, or the next line's
  }
  std::set<std::string> found;
  const std::string call = intrinsic + "(&";
  for (size_t at = joined.find(call); at != std::string::npos; at = joined.find(call, at + 1))
    found.insert(joined.substr(at, joined.find("])", at) + 2 - at));
  return found;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The largest difference between the outputs of `op`'s default schedule built for `on` and for
// `off`, run on the same random inputs.
double on_off_difference(const OpInstance& op, const Target& on, const Target& off) {
  std::vector<NDArray> inputs;
  for (size_t i = 0; i < op.inputs.size(); ++i) inputs.push_back(test::random_array(op.inputs[i].shape(), i + 1));
  std::vector<std::vector<float>> results;
  for (const Target& t : {on, off}) {
    NDArray out = NDArray::empty(op.output.shape(), op.output.dtype());
    std::memset(out.data(), 0xff, out.nbytes());
    std::vector<NDArray> copies = inputs;
    std::vector<NDArray*> args;
    for (NDArray& array : copies) args.push_back(&array);
    args.push_back(&out);
    build(default_schedule(op.output, t), op.args(), "kernel", t)->run(args);
    results.push_back(test::to_vector(out));
  }
  return test::max_abs_diff(results[0], results[1]);
}

}  // namespace

TEST_CASE("a 1x1 conv2d_nchwc prefetches its kernel -prefetch bytes ahead in the icb loop", "[ops][prefetch]") {
  // 320 -> 1280 at 7x7: kernel [OC/ob, C/ib, 1, 1, ib, ob]; each icb step reads ob floats
  for (const char* isa : {"avx2", "avx512"}) {
    for (int64_t kib : {8, 16}) {
      Target target = Target::parse(std::string("llvm_cpu -isa=") + isa + " -prefetch=" + std::to_string(kib) + "K");
      OpInstance op = conv2d_instance(parse_conv2d_shape("1,320,7,7,1280,1,1,0"), target);
      int64_t ob = op.inputs[1].shape()[5], floats_ahead = kib * 1024 / 4;
      std::string text = lowered_default(op, target);
      INFO(isa << ", " << kib << " KiB:\n" << text);
      // one prefetch per 16-float line of the step's ob floats, floats_ahead further on
      std::set<std::string> found = prefetches(text);
      REQUIRE(static_cast<int64_t>(found.size()) == ob / 16);
      std::string first = "icb*" + std::to_string(ob) + " + " + std::to_string(floats_ahead) + "])";
      CHECK(found.begin()->find(first) != std::string::npos);
    }
  }
}

TEST_CASE("a 1x1 kernel is prefetched in its icb loop whatever the order of its loops of one iteration",
          "[ops][prefetch]") {
  // kh and kw run once: placed innermost and not unrolled, the kw loop once took the prefetch and
  // its 64 "iterations ahead" became 64 kernel rows (128 KiB) instead of 8 KiB.
  Target target = Target::parse("llvm_cpu -isa=avx512 -prefetch=8K");
  OpInstance op = conv2d_instance(parse_conv2d_shape("1,96,14,14,64,1,1,0"), target);
  int64_t ob = op.inputs[1].shape()[5];
  std::string ahead = "icb*" + std::to_string(ob) + " + 2048])";
  for (const std::vector<int>& order : std::vector<std::vector<int>>{{0, 2, 1, 3}, {0, 1, 2, 3}, {2, 3, 0, 1}})
    for (bool unroll_kw : {false, true}) {
      WindowConfig config = conv2d_fallback_config(op.output, target);
      config.reduce_order = order;
      config.unrolled = unroll_kw ? std::vector<int>{3} : std::vector<int>{};
      std::string text = lowered(schedule_conv2d_nchwc(op.output, config), op.args(), target);
      INFO("order " << order[0] << order[1] << order[2] << order[3] << (unroll_kw ? ", kw unrolled" : "") << ":\n"
                    << text);
      std::set<std::string> found = prefetches(text);
      REQUIRE_FALSE(found.empty());
      CHECK(found.begin()->find(ahead) != std::string::npos);
    }
}

TEST_CASE("a 3x3 kernel streams into L2 a register tile's slice ahead, with channels outside rows",
          "[ops][prefetch]") {
  // ResNet-18's C10 (256 -> 512, stride 2, 7x7 out)
  for (const char* isa : {"avx2", "avx512"}) {
    Target target = Target::parse(std::string("llvm_cpu -isa=") + isa + " -threads=1");
    OpInstance op = conv2d_instance(parse_conv2d_shape("1,256,14,14,512,3,2,1"), target);
    WindowConfig config = conv2d_fallback_config(op.output, target);
    REQUIRE_FALSE(config.rows_outer);
    const auto& k = op.inputs[1].shape();  // [ocb, icc, kh, kw, ib, ob]
    int64_t kernel_lines = k[0] * k[1] * k[2] * k[3] * k[4] * k[5] * 4 / 64;
    int64_t slice_lines = kernel_lines / k[0] * config.channel_blocks;
    std::string text = lowered_default(op, target);
    INFO(isa << ":\n" << text);
    CHECK(prefetches(text).empty());  // no per-step prefetch: each weight serves many register tiles
    std::set<std::string> found = prefetches(text, "prefetch_l2");
    // each share's first line: the even pace plus one slice (in the loops loop partitioning left
    // whole), clamped one share before the end
    std::string lead = " + " + std::to_string(slice_lines) + ", ";
    auto leads = [&](const std::string& p) { return p.find(lead) != std::string::npos; };
    int64_t share_lines = std::count_if(found.begin(), found.end(), leads);  // one statement per line
    REQUIRE(share_lines >= 1);
    std::string clamp = ", " + std::to_string(kernel_lines - share_lines) + ")";
    for (const std::string& p : found) CHECK(p.find(clamp) != std::string::npos);

    config.rows_outer = true;  // every row tile reads the whole kernel: no single stream to pace
    CHECK(prefetches(lowered(schedule_conv2d_nchwc(op.output, config), op.args(), target), "prefetch_l2").empty());
  }
}

TEST_CASE("no weight prefetch for -prefetch=0", "[ops][prefetch]") {
  Target off = Target::parse("llvm_cpu -isa=avx512 -prefetch=0");
  for (const char* shape : {"1,320,7,7,1280,1,1,0", "1,256,14,14,512,3,2,1"}) {
    std::string text = lowered_default(conv2d_instance(parse_conv2d_shape(shape), off), off);
    INFO(shape << ":\n" << text);
    CHECK(prefetches(text).empty());
    CHECK(prefetches(text, "prefetch_l2").empty());
  }
}

TEST_CASE("the pixel form prefetches its kernel too", "[ops][prefetch]") {
  Target target = Target::parse("llvm_cpu -isa=avx2");
  Tensor x = placeholder({1, 20, 7, 7, 16}, DataType::float32(), "x");
  Tensor k = placeholder({40, 20, 1, 1, 16, 32}, DataType::float32(), "k");
  Tensor out = conv2d_nchwc_pixels(x, k);
  PixelsConfig config = pixels_fallback_config(out, target);
  REQUIRE(config.channel_blocks == 1);  // 40 output blocks: slices of one input block
  std::string text = lowered(default_schedule(out, target), {x, k, out}, target);
  INFO(text);
  std::set<std::string> found = prefetches(text);
  REQUIRE(found.size() == 32);  // a block of 16 x 32 floats: 32 lines, each prefetched once a slice
  CHECK(count_of(text, "prefetch(") == 32);
  CHECK(found.begin()->find("icc.outer*512 + 2048])") != std::string::npos);  // 8 KiB ahead

  config.channel_blocks = 0;  // every tile over all the input blocks
  text = lowered(schedule_conv2d_nchwc_pixels(out, config), {x, k, out}, target);
  INFO(text);
  found = prefetches(text);
  REQUIRE(found.size() == 2);  // 32 floats a step: two lines
  CHECK(found.begin()->find("icb*32 + 2048])") != std::string::npos);
}

TEST_CASE("weight prefetch changes no value of a compiled convolution", "[ops][prefetch]") {
  for (const Target& runnable : test::runnable_cpu_targets()) {
    Target on = Target::parse(runnable.str()), off = Target::parse(runnable.str() + " -prefetch=0");
    for (const char* shape : {"1,64,7,7,128,1,1,0", "1,32,14,14,64,3,2,1"}) {
      OpInstance op = conv2d_instance(parse_conv2d_shape(shape), on);
      INFO(on.key() << ", " << shape);
      CHECK(on_off_difference(op, on, off) == 0);
    }
  }
}

TEST_CASE("the Winograd GEMM prefetches U -winograd-prefetch bytes ahead in its channel loop, 0 nothing",
          "[ops][prefetch][winograd]") {
  for (const char* isa : {"avx2", "avx512"}) {
    std::string base = std::string("llvm_cpu -isa=") + isa;
    Target on = Target::parse(base + " -winograd-prefetch=2K"), off = Target::parse(base + " -winograd-prefetch=0");
    WinogradInstance op = winograd_instance({1, 64, 7, 7, 64, 1, 2}, on);
    WinogradConfig config = winograd_fallback_config(op.output, on);
    std::vector<Tensor> args = {op.data, op.weights, op.output};
    std::string text = lowered(default_schedule(op.output, on), args, on);
    INFO(isa << ":\n" << text);
    // one prefetch per 16-float line of a step's k_unroll x ob floats, 512 floats further on
    std::set<std::string> found = prefetches(text);
    REQUIRE(static_cast<int64_t>(found.size()) == config.k_unroll * op.weights.shape()[4] / 16);
    CHECK(found.begin()->find(" + 512])") != std::string::npos);
    CHECK(prefetches(lowered(default_schedule(op.output, off), args, off)).empty());
  }
}

TEST_CASE("the Winograd GEMM's prefetch changes no value", "[ops][prefetch][winograd]") {
  for (const Target& runnable : test::runnable_cpu_targets()) {
    Target on = Target::parse(runnable.str() + " -winograd-prefetch=2K");
    Target off = Target::parse(runnable.str() + " -winograd-prefetch=0");
    WinogradInstance op = winograd_instance({1, 32, 7, 7, 32, 1, 2}, on);
    INFO(on.key());
    CHECK(on_off_difference({{op.data, op.weights}, op.output}, on, off) == 0);
  }
}
