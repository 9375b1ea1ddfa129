// The sign-test interval of the median (support/statistics.h) against its closed form.
#include "support/statistics.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>

using namespace tessel;

TEST_CASE("the median's interval takes the order statistics the binomial distribution gives", "[support]") {
  std::vector<double> samples(30);
  std::iota(samples.begin(), samples.end(), 1.0);  // x_(k) = k
  std::shuffle(samples.begin(), samples.end(), std::mt19937(1));
  MedianInterval i = median_interval(samples, 0.95);
  // n = 30: P(B <= 9) = 0.0214, P(B <= 10) = 0.0494, so the 10th and the 21st samples, 95.7%
  CHECK(i.low == 10);
  CHECK(i.high == 21);
  CHECK(i.coverage == Approx(1 - 2 * 0.021387).epsilon(1e-3));
  MedianInterval wide = median_interval(samples, 0.99);
  CHECK((wide.low < i.low && wide.high > i.high && wide.coverage >= 0.99));
}

TEST_CASE("with too few samples for the confidence the median's interval is their range", "[support]") {
  MedianInterval two = median_interval({3.0, 1.0}, 0.95);
  CHECK((two.low == 1 && two.high == 3));
  CHECK(two.coverage == Approx(0.5));
  MedianInterval six = median_interval({6, 5, 4, 3, 2, 1}, 0.95);  // 1 - 2/64 = 0.969
  CHECK((six.low == 1 && six.high == 6));
  CHECK(six.coverage == Approx(1 - 2.0 / 64));
  MedianInterval one = median_interval({7.0}, 0.95);
  CHECK((one.low == 7 && one.high == 7 && one.coverage == 0));
}

TEST_CASE("the median's interval holds the median as often as it says", "[support]") {
  std::mt19937 rng(5);
  std::exponential_distribution<double> skewed(1.0);  // median ln 2
  int covered = 0, trials = 2000;
  double coverage = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> s(30);
    for (double& x : s) x = skewed(rng);
    MedianInterval i = median_interval(s, 0.95);
    covered += i.low <= std::log(2.0) && std::log(2.0) <= i.high;
    coverage = i.coverage;
  }
  CHECK(double(covered) / trials == Approx(coverage).margin(0.02));
}
