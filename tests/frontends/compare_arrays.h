// The closeness check of the model and conformance tests: |actual - expected| <= atol + rtol·|expected|
// element by element (numpy's allclose), with the worst absolute and relative differences for the
// report. NaN never passes.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/ndarray.h"

namespace tessel::test {

struct Closeness {
  bool close = true;
  double max_abs = 0, max_rel = 0;
  std::string problem;  // shape or type mismatch
};

inline Closeness compare_arrays(const NDArray& actual, const NDArray& expected, double rtol, double atol) {
  Closeness c;
  if (actual.shape() != expected.shape() || !(actual.dtype() == expected.dtype())) {
    c.close = false;
    c.problem = "got " + actual.dtype().str() + shape_str(actual.shape()) + ", expected " + expected.dtype().str() +
                shape_str(expected.shape());
    return c;
  }
  for (int64_t i = 0; i < actual.numel(); ++i) {
    double a = actual.get_double(i), e = expected.get_double(i), diff = std::abs(a - e);
    if (std::isnan(a) != std::isnan(e) || (!std::isnan(e) && !(diff <= atol + rtol * std::abs(e)))) c.close = false;
    if (std::isnan(diff)) continue;
    c.max_abs = std::max(c.max_abs, diff);
    if (e != 0) c.max_rel = std::max(c.max_rel, diff / std::abs(e));
  }
  return c;
}

}  // namespace tessel::test
