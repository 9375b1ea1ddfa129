// Distribution-free statistics of noisy samples: timing rounds on a shared machine, where a
// neighbour's burst can slow any round by tens of percent and no distribution can be assumed.
#pragma once
#include <vector>

namespace tessel {

// An interval of two order statistics of the samples that holds the population median with
// probability `coverage`.
struct MedianInterval {
  double low = 0, high = 0;
  double coverage = 0;  // 1 - 2 P(Binomial(n, 1/2) < k), low being the k-th smallest sample
};

// The narrowest interval of order statistics, symmetric in rank, whose coverage is at least
// `confidence` (in (0, 1)): the sign-test interval of the median, valid for any continuous
// distribution. With too few samples to reach it (fewer than 6 for 0.95) it is [min, max] with the
// coverage those give. Samples must not be empty.
MedianInterval median_interval(std::vector<double> samples, double confidence = 0.95);

}  // namespace tessel
