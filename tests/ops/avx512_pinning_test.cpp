// AVX-512 stays exactly as it was: the default schedules of the reference workloads, derived for
// the target llvm_cpu -isa=avx512 (blocked layouts, register tiles), lower to the very programs
// they lowered to before schedules took a target (tests/avx512_golden.h). Lowering only: this
// runs on any host.
#include <catch2/catch.hpp>

#include "datasets/workloads.h"
#include "ir/printer.h"
#include "ops/op_schedule.h"
#include "ops/workload_ops.h"
#include "passes/lower/lower.h"
#include "tests/avx512_golden.h"

using namespace tessel;

namespace {

// The workload's instance and the name its pinned kernel was lowered under.
std::pair<ops::OpInstance, std::string> instance_of(const std::string& name, const Target& target) {
  if (name.rfind("gemm:", 0) == 0) return {ops::gemm_instance(square_gemm(std::stoll(name.substr(5))), target), "gemm"};
  if (name[0] == 'C') return {ops::conv2d_instance(find_conv2d_workloads(name).at(0).shape, target), "conv2d"};
  return {ops::depthwise_instance(find_depthwise_workloads(name).at(0).shape, target), "depthwise"};
}

}  // namespace

TEST_CASE("AVX-512 default schedules lower to the pinned programs", "[ops][avx512]") {
  Target avx512 = Target::parse(test::kAvx512PinnedTarget);
  nlohmann::json golden = test::avx512_golden();
  REQUIRE(golden.size() == 25);  // gemm:256..2048, C1-C12, D1-D9
  for (const auto& [name, pin] : golden.items()) {
    auto [op, kernel] = instance_of(name, avx512);
    std::string text = to_string(lower(ops::default_schedule(op.output, avx512), op.args(), kernel));
    bool same = text.size() == pin.at("lowered_default_chars").get<size_t>() &&
                test::fnv1a64(text) == pin.at("lowered_default_fnv").get<std::string>();
    if (!same) FAIL_CHECK(name << " lowers to another program for avx512; it is in " << test::save_for_diff(name, text));
  }
}
