// libFuzzer target: the workload-spec parser (search/spaces/workload_spec.h parse_workload), which every
// command and config uses to turn "C6", "gemm:1024", "conv2d:N,C,H,W,OC,K,S,P" or a fused block's
// "block:N,C,H,W,B/cK,S,P,OC/dK,S,P" into a shape.
// Whatever the text, it gives a workload whose sizes are sane or a UserError; anything else (a
// crash, signed overflow, another exception) is a bug.
// Seeds: seeds/workload_spec.txt, one workload per line.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "search/spaces/workload_spec.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    tessel::search::WorkloadSpec spec = tessel::search::parse_workload(text);
    TESSEL_CHECK(spec.name == text);
    TESSEL_CHECK(spec.op() == "gemm" || spec.op() == "conv2d" || spec.op() == "depthwise" || spec.op() == "winograd" ||
                     spec.op() == "pixels" || spec.op() == "block",
                 spec.op());
    TESSEL_CHECK(std::isfinite(spec.flops()) && spec.flops() > 0, text, " has ", spec.flops(), " flops");
    TESSEL_CHECK(spec.reduction_size() >= 1, text);
    TESSEL_CHECK(!spec.describe().empty());
    // The name is the workload: parsing it again gives the same shape.
    TESSEL_CHECK(tessel::search::parse_workload(spec.name).describe() == spec.describe());
  } catch (const tessel::UserError&) {
  }
  return 0;
}
