// The executors the differential tests compare: the loop interpreter and both CPU back ends run a
// lowered function; results compare element by element, floats bit for bit except that any NaN
// equals any NaN (NaN payloads are not part of the semantics), or, for the float math that
// back ends may compute their own way (llvm_cpu's inline exp and tanh), within a few ulp.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "passes/lower/loop_interpreter.h"

namespace tessel::test {

struct Executor {
  std::string name;
  std::function<void(const LoweredFunc&, const std::vector<NDArray*>&)> run;
};

inline std::vector<Executor> executors() {
  auto compiled = [](const char* kind) {
    return [kind](const LoweredFunc& f, const std::vector<NDArray*>& args) {
      create_backend(Target::parse(kind))->compile(f)->run(args);
    };
  };
  return {{"loop interpreter", [](const LoweredFunc& f, const std::vector<NDArray*>& args) { run_lowered(f, args); }},
          {"llvm_cpu", compiled("llvm_cpu")},
          {"c_source", compiled("c_source")}};
}

// Whether finite floats a and b of the same sign are at most `ulps` float32 spacings (at b) apart.
inline bool within_ulps(double a, double b, double ulps) {
  if (ulps == 0 || !std::isfinite(a) || !std::isfinite(b) || std::signbit(a) != std::signbit(b)) return false;
  double magnitude = std::max(std::abs(b), static_cast<double>(std::numeric_limits<float>::min()));
  return std::abs(a - b) <= ulps * std::ldexp(1.0, std::ilogb(magnitude) - 23);
}

// The flat index of the first element where the arrays differ (by more than `ulps` float32
// spacings, where that is given), or -1.
inline int64_t first_difference(const NDArray& a, const NDArray& b, double ulps = 0) {
  REQUIRE(a.numel() == b.numel());
  REQUIRE(a.dtype().str() == b.dtype().str());
  int bytes = a.dtype().bytes();
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (std::memcmp(pa + i * bytes, pb + i * bytes, bytes) == 0) continue;
    if (a.dtype().code == ElementType::kFloat && std::isnan(a.get_double(i)) && std::isnan(b.get_double(i))) continue;
    if (a.dtype().code == ElementType::kFloat && within_ulps(a.get_double(i), b.get_double(i), ulps)) continue;
    return i;
  }
  return -1;
}

// Every executor computes `expected` for f on (copies of) `inputs`; the outputs are the arguments
// after the inputs, and `expected` holds one array per output.
inline void require_same_everywhere(const LoweredFunc& f, const std::vector<NDArray>& inputs,
                                    const std::vector<NDArray>& expected, double ulps = 0) {
  for (const Executor& e : executors()) {
    std::vector<NDArray> arrays;
    for (const NDArray& in : inputs) arrays.push_back(in.copy());
    for (const NDArray& out : expected) arrays.push_back(NDArray::zeros(out.shape(), out.dtype()));
    std::vector<NDArray*> args;
    for (NDArray& a : arrays) args.push_back(&a);
    e.run(f, args);
    for (size_t o = 0; o < expected.size(); ++o) {
      const NDArray& got = arrays[inputs.size() + o];
      int64_t at = first_difference(got, expected[o], ulps);
      INFO(e.name << ", output " << f.args[inputs.size() + o].buffer.name() << " of:\n" << f.name);
      INFO("element " << at << ": got " << (at >= 0 ? got.get_double(at) : 0) << ", expected "
                      << (at >= 0 ? expected[o].get_double(at) : 0));
      CHECK(at == -1);
    }
  }
}

}  // namespace tessel::test
