// Distribution-free statistics of noisy samples (support/statistics.h).
#include "support/statistics.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace tessel {

namespace {

// P(Binomial(n, 1/2) <= k) for k = 0 .. n-1, summed in logarithms so that large n cannot underflow.
std::vector<double> binomial_half_cdf(int n) {
  std::vector<double> cdf(n);
  double log_choose = 0, sum = 0, log_half_n = n * std::log(0.5);
  for (int k = 0; k < n; ++k) {
    if (k > 0) log_choose += std::log(double(n - k + 1)) - std::log(double(k));
    sum += std::exp(log_choose + log_half_n);
    cdf[k] = sum;
  }
  return cdf;
}

}  // namespace

MedianInterval median_interval(std::vector<double> samples, double confidence) {
  TESSEL_CHECK(!samples.empty(), "median_interval of no samples");
  TESSEL_CHECK(confidence > 0 && confidence < 1, "median_interval: confidence ", confidence, " is not in (0, 1)");
  std::sort(samples.begin(), samples.end());
  int n = static_cast<int>(samples.size());
  std::vector<double> cdf = binomial_half_cdf(n);
  // [x_(r), x_(n-1-r)] (0-based) misses the median when at most r samples fall on one side of it,
  // so it covers it with probability 1 - 2 P(B <= r).
  auto coverage = [&](int r) { return 1 - 2 * cdf[r]; };
  int rank = 0;
  while (rank + 1 <= (n - 1) / 2 && coverage(rank + 1) >= confidence) ++rank;
  return {samples[rank], samples[n - 1 - rank], coverage(rank)};
}

}  // namespace tessel
