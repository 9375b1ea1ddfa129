// conv2d_nchwc_shares (ops/conv2d_shares.h): the values conv2d_nchwc computes, on every runnable
// CPU target and one to four threads; each thread's share of the partial sums in one iteration of
// the parallel loop; what it rejects.
#include "ir/printer.h"
#include "ops/conv2d_nchwc.h"
#include "ops/conv2d_shares.h"
#include "ops/op_schedule.h"
#include "passes/lower/lower.h"
#include "runtime/thread_pool.h"
#include "tests/ops/ops_test_util.h"
#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::ops;

TEST_CASE("conv2d_nchwc_shares computes what conv2d_nchwc computes", "[ops][conv2d]") {
  struct Case {
    int64_t c_blocks, h, w, ib, o_blocks, ob, shares;
  };
  const Case cases[] = {
      {6, 7, 7, 8, 2, 16, 2},  // MobileNet-V2's 7x7 projections in small
      {4, 3, 5, 4, 3, 8, 4},   // four shares of one block each, 3 output blocks
      {3, 2, 2, 8, 1, 8, 3},
      {2, 4, 4, 8, 2, 8, 1},   // one share: the plain sum
  };
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (const Case& p : cases) {
      Tensor x = placeholder({1, p.c_blocks, p.h, p.w, p.ib}, DataType::float32(), "x");
      Tensor k = placeholder({p.o_blocks, p.c_blocks, 1, 1, p.ib, p.ob}, DataType::float32(), "k");
      NDArray xv = test::random_array(x.shape(), 1), kv = test::random_array(k.shape(), 2);
      Tensor shares = conv2d_nchwc_shares(x, k, p.shares);
      NDArray expected = evaluate(conv2d_nchwc(x, k, {}), {{x, xv}, {k, kv}});
      CHECK(test::max_abs_diff(test::to_vector(evaluate(shares, {{x, xv}, {k, kv}})), test::to_vector(expected)) <=
            1e-5);
      for (const Target& target : test::runnable_cpu_targets()) {
        Target t = target.with_threads(p.shares);
        INFO(t.key() << ", " << threads << " threads, data " << shape_str(x.shape()) << ", " << p.shares << " shares");
        NDArray ours = test::run_default_schedule(shares, x, k, xv, kv, t);
        CHECK(test::max_abs_diff(test::to_vector(ours), test::to_vector(expected)) <= 1e-4);
      }
    }
  }
}

TEST_CASE("conv2d_nchwc_shares: each share of the partial sums is one iteration of the parallel loop",
          "[ops][conv2d]") {
  Tensor x = placeholder({1, 6, 7, 7, 8}, DataType::float32(), "x");
  Tensor k = placeholder({2, 6, 1, 1, 8, 16}, DataType::float32(), "k");
  Tensor y = conv2d_nchwc_shares(x, k, 2, "conv");
  CHECK(reads_channel_shares(y));
  CHECK(!reads_channel_shares(conv2d_nchwc(x, k, {})));
  CHECK(channel_shares_partial(y).shape() == std::vector<int64_t>{1, 4, 7, 7, 16});
  Target avx2 = Target::parse("llvm_cpu -isa=avx2 -threads=2");
  std::string program = to_string(lower(schedule_conv2d_nchwc_shares(y, avx2), {x, k, y}, "conv", avx2));
  INFO(program);
  CHECK(program.find("allocate conv.partial[float32 * 3136]") != std::string::npos);  // 2 x 2 x 7 x 7 x 16
  CHECK(program.find("parallel (") != std::string::npos);
  CHECK(program.find(", 0, 2) {") != std::string::npos);  // the loop over the two shares
}

TEST_CASE("conv2d_nchwc_shares: bad operands and shares are user errors", "[ops][conv2d]") {
  Tensor x = placeholder({1, 6, 7, 7, 8}, DataType::float32(), "x");
  Tensor k = placeholder({2, 6, 1, 1, 8, 16}, DataType::float32(), "k");
  test::require_user_error([&] { conv2d_nchwc_shares(x, k, 4); }, {"4 shares do not divide the 6 input channel blocks"});
  test::require_user_error([&] { conv2d_nchwc_shares(x, k, 0); }, {"0 shares"});
  Tensor k3 = placeholder({2, 6, 3, 3, 8, 16}, DataType::float32(), "k3");
  test::require_user_error([&] { conv2d_nchwc_shares(x, k3, 2); }, {"not an ungrouped 1x1 kernel"});
  Tensor y = conv2d_nchwc_shares(x, k, 2);
  Schedule s = create_schedule({y});
  WindowConfig three_blocks;
  three_blocks.channel_blocks = 3;  // 4 partial blocks: not in tiles of 3
  test::require_user_error([&] { schedule_channel_shares(s, y, three_blocks); }, {"do not divide its channel blocks"});
}
