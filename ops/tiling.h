// Rules that pick tile sizes for the default schedules: factors that divide a loop's extent, so
// the schedules avoid the guarded tails a non-dividing split produces.
#pragma once
#include <cstdint>
#include <initializer_list>

namespace tessel::ops {

// The largest divisor of `extent` that is at most `limit` (1 if there is none larger).
int64_t largest_divisor_at_most(int64_t extent, int64_t limit);

// The first of `candidates` that divides `extent`, or `fallback` if none does.
int64_t first_divisor(int64_t extent, std::initializer_list<int64_t> candidates, int64_t fallback);

}  // namespace tessel::ops
