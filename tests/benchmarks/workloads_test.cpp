// The reference workload tables and the command-line shape parsers, including every kind of bad input.
#include <catch2/catch.hpp>

#include <functional>

#include "datasets/workloads.h"
#include "support/error.h"

using namespace tessel;
using Catch::Matchers::Contains;

namespace {

// The message of the UserError that `bad_call` throws ("" and a failed check if it throws none).
std::string user_error_of(const std::function<void()>& bad_call) {
  try {
    bad_call();
  } catch (const UserError& e) {
    return e.what();
  }
  FAIL_CHECK("no UserError thrown");
  return "";
}

}  // namespace

TEST_CASE("ResNet-18 conv2d table holds C1..C12 as in docs/workloads.md", "[workloads]") {
  const auto& table = resnet18_conv2d_workloads();
  REQUIRE(table.size() == 12);
  CHECK(table.front().name == "C1");
  CHECK(table.back().name == "C12");
  const Conv2dShape& c1 = table.front().shape;
  CHECK((c1.c == 3 && c1.oc == 64 && c1.kh == 7 && c1.stride == 2 && c1.pad == 3));
  CHECK(c1.out_h() == 112);
  CHECK(c1.out_w() == 112);
  const Conv2dShape c6 = find_conv2d_workloads("C6").at(0).shape;
  CHECK((c6.h == 28 && c6.out_h() == 28));
  CHECK(c6.reduction_size() == 128 * 9);
  CHECK(c6.flops() == 2.0 * 128 * 28 * 28 * 128 * 9);
  CHECK(find_conv2d_workloads("C11").at(0).shape.out_h() == 7);
}

TEST_CASE("MobileNet depthwise table holds D1..D9 as in docs/workloads.md", "[workloads]") {
  const auto& table = mobilenet_depthwise_workloads();
  REQUIRE(table.size() == 9);
  const DepthwiseShape d2 = find_depthwise_workloads("D2").at(0).shape;
  CHECK((d2.c == 64 && d2.h == 112 && d2.stride == 2 && d2.k == 3 && d2.pad == 1));
  CHECK(d2.out_h() == 56);
  const Conv2dShape grouped = d2.as_conv2d();
  CHECK(grouped.groups == 64);
  CHECK(grouped.out_h() == d2.out_h());
  CHECK(grouped.flops() == d2.flops());
}

TEST_CASE("workload lookup by name and 'all'", "[workloads]") {
  CHECK(find_conv2d_workloads("all").size() == 12);
  CHECK(find_depthwise_workloads("all").size() == 9);
  CHECK(find_depthwise_workloads("D9").at(0).shape.c == 1024);
  CHECK(user_error_of([] { find_conv2d_workloads("C13"); }) ==
        "unknown conv2d workload \"C13\"; valid: C1..C12 or all");
  CHECK(user_error_of([] { find_depthwise_workloads("c1"); }) ==
        "unknown depthwise workload \"c1\"; valid: D1..D9 or all");
  CHECK(user_error_of([] { find_conv2d_workloads(""); }) == "unknown conv2d workload \"\"; valid: C1..C12 or all");
}

TEST_CASE("shape parsers accept well-formed shapes", "[workloads]") {
  GemmShape g = parse_gemm_shape("128,256,64");
  CHECK((g.m == 128 && g.n == 256 && g.k == 64));
  CHECK(parse_gemm_shape(" 8, 9 ,10 ").k == 10);
  Conv2dShape c = parse_conv2d_shape("1,64,56,56,128,3,2,1");
  CHECK((c.n == 1 && c.c == 64 && c.h == 56 && c.w == 56 && c.oc == 128));
  CHECK((c.kh == 3 && c.kw == 3 && c.stride == 2 && c.pad == 1 && c.dilation == 1 && c.groups == 1));
  CHECK(c.out_h() == 28);
  DepthwiseShape d = parse_depthwise_shape("1,32,112,112,3,1,1");
  CHECK((d.c == 32 && d.k == 3 && d.out_w() == 112));
  CHECK(parse_conv2d_shape("1,3,5,5,4,5,1,0").out_h() == 1);  // kernel as large as the input
  CHECK(square_gemm(7).m == 7);
}

TEST_CASE("shape parsers reject malformed text with one line naming the problem", "[workloads]") {
  CHECK(user_error_of([] { parse_gemm_shape("1,2"); }) ==
        "bad gemm shape \"1,2\": expected 3 comma-separated integers M,N,K, got 2");
  CHECK(user_error_of([] { parse_gemm_shape("1,2,3,4"); }) ==
        "bad gemm shape \"1,2,3,4\": expected 3 comma-separated integers M,N,K, got 4");
  CHECK(user_error_of([] { parse_gemm_shape(""); }) ==
        "bad gemm shape \"\": expected 3 comma-separated integers M,N,K, got 0");
  CHECK(user_error_of([] { parse_gemm_shape("1,2,3,"); }) ==
        "bad gemm shape \"1,2,3,\": expected 3 comma-separated integers M,N,K, got 4");
  CHECK(user_error_of([] { parse_gemm_shape("1,x,3"); }) ==
        "bad gemm shape \"1,x,3\": N is \"x\", not an integer in range (expected M,N,K)");
  CHECK(user_error_of([] { parse_gemm_shape("1,2,3abc"); }) ==
        "bad gemm shape \"1,2,3abc\": K is \"3abc\", not an integer in range (expected M,N,K)");
  CHECK(user_error_of([] { parse_gemm_shape("1,,3"); }) ==
        "bad gemm shape \"1,,3\": N is \"\", not an integer in range (expected M,N,K)");
  CHECK_THAT(user_error_of([] { parse_gemm_shape("1.5,2,3"); }), Contains("M is \"1.5\", not an integer"));
  CHECK_THAT(user_error_of([] { parse_gemm_shape("99999999999999999999,2,3"); }), Contains("not an integer in range"));
  CHECK(user_error_of([] { parse_conv2d_shape("1,64,56,56,128,3,2"); }) ==
        "bad conv2d shape \"1,64,56,56,128,3,2\": expected 8 comma-separated integers N,C,H,W,OC,K,S,P, got 7");
  CHECK(user_error_of([] { parse_depthwise_shape("1;32;112;112;3;1;1"); }) ==
        "bad depthwise shape \"1;32;112;112;3;1;1\": expected 7 comma-separated integers N,C,H,W,K,S,P, got 1");
}

TEST_CASE("shape parsers reject sizes out of range", "[workloads]") {
  CHECK(user_error_of([] { parse_gemm_shape("0,2,3"); }) == "bad gemm shape \"0,2,3\": M must be >= 1, got 0");
  CHECK(user_error_of([] { parse_gemm_shape("4,-2,3"); }) == "bad gemm shape \"4,-2,3\": N must be >= 1, got -2");
  CHECK(user_error_of([] { parse_conv2d_shape("1,64,56,56,128,3,0,1"); }) ==
        "bad conv2d shape \"1,64,56,56,128,3,0,1\": stride must be >= 1, got 0");
  CHECK(user_error_of([] { parse_conv2d_shape("1,64,56,56,128,3,1,-1"); }) ==
        "bad conv2d shape \"1,64,56,56,128,3,1,-1\": pad must be >= 0, got -1");
  CHECK(user_error_of([] { parse_conv2d_shape("1,3,4,4,8,7,1,1"); }) ==
        "bad conv2d shape \"1,3,4,4,8,7,1,1\": the kernel (extent 7x7) is larger than the padded input 6x6");
  CHECK(user_error_of([] { parse_depthwise_shape("1,0,7,7,3,1,1"); }) ==
        "bad depthwise shape \"1,0,7,7,3,1,1\": C must be >= 1, got 0");
  CHECK(user_error_of([] { parse_depthwise_shape("1,8,7,7,3,-1,1"); }) ==
        "bad depthwise shape \"1,8,7,7,3,-1,1\": S must be >= 1, got -1");
  CHECK_THAT(user_error_of([] { parse_gemm_shape("100000,100000,100000"); }), Contains("is too large"));
  CHECK(user_error_of([] { square_gemm(0); }) == "bad gemm size --n 0: must be >= 1");
  CHECK(user_error_of([] { square_gemm(-5); }) == "bad gemm size --n -5: must be >= 1");
}

TEST_CASE("validate checks groups and dilation and describes the shape", "[workloads]") {
  CHECK(user_error_of([] { validate(Conv2dShape{1, 6, 8, 8, 4, 3, 3, 1, 1, 1, 4}); }) ==
        "bad conv2d shape (N=1 C=6 H=8 W=8 OC=4 K=3 S=1 P=1 G=4): C (6) and OC (4) must be multiples of groups (4)");
  CHECK_THAT(user_error_of([] { validate(Conv2dShape{1, 4, 9, 9, 4, 3, 3, 1, 0, 5, 1}); }),
             Contains("the kernel (extent 11x11) is larger than the padded input 9x9"));
  CHECK_NOTHROW(validate(resnet18_conv2d_workloads().at(0).shape));
}
