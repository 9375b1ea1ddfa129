// Helpers of the operator tests: random inputs, the interpreter as oracle, and the differential
// check of an op compiled with its default schedule against the interpreter.
#pragma once
#include <catch2/catch.hpp>

#include <cstring>
#include <utility>
#include <vector>

#include "ir/te_interpreter.h"
#include "ops/build.h"
#include "ops/op_schedule.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel::test {

inline NDArray random_array(const std::vector<int64_t>& shape, uint64_t seed) {
  return NDArray::random_uniform(shape, DataType::float32(), seed);
}

inline std::vector<float> to_vector(const NDArray& a) {
  std::vector<float> v(a.numel());
  std::memcpy(v.data(), a.data(), a.nbytes());
  return v;
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, double(std::abs(a[i] - b[i])));
  return worst;
}

using Inputs = std::vector<std::pair<Tensor, NDArray>>;

// "llvm_cpu -isa=..." for every CPU ISA level, lowest first: what schedules and layouts are
// derived for (lowering works for all of them on any host).
inline std::vector<Target> cpu_targets() {
  std::vector<Target> targets;
  for (CpuIsa isa : {CpuIsa::SSE4, CpuIsa::AVX2, CpuIsa::AVX512})
    targets.push_back(Target::parse(std::string("llvm_cpu -isa=") + isa_name(isa)));
  return targets;
}

// The CPU targets this machine runs (ISA up to the host's): what compiled code is checked on.
inline std::vector<Target> runnable_cpu_targets() {
  std::vector<Target> targets;
  for (const Target& t : cpu_targets())
    if (t.cannot_run_reason().empty()) targets.push_back(t);
  return targets;
}

// `out`, a function of data `x` and kernel `k`, compiled with its default schedule for `target` and
// run on `xv` and `kv`. The result starts as NaN, so an element never written fails a comparison.
inline NDArray run_default_schedule(const Tensor& out, const Tensor& x, const Tensor& k, const NDArray& xv,
                                    const NDArray& kv, const Target& target) {
  NDArray result = NDArray::empty(out.shape(), out.dtype());
  std::memset(result.data(), 0xff, result.nbytes());
  NDArray xa = xv, ka = kv;
  ops::build(ops::default_schedule(out, target), {x, k, out}, out.name(), target)->run({&xa, &ka, &result});
  return result;
}

// The interpreter's value of `output` compared with a reference computed independently.
inline void check_definition(const Tensor& output, const Inputs& inputs, const std::vector<float>& expected,
                             double tolerance = 1e-4) {
  NDArray value = evaluate(output, inputs);
  CHECK(max_abs_diff(to_vector(value), expected) <= tolerance);
}

}  // namespace tessel::test
