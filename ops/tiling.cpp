// Tile-size rules of ops/tiling.h.
#include "ops/tiling.h"

namespace tessel::ops {

int64_t largest_divisor_at_most(int64_t extent, int64_t limit) {
  for (int64_t f = limit < extent ? limit : extent; f > 1; --f)
    if (extent % f == 0) return f;
  return 1;
}

int64_t first_divisor(int64_t extent, std::initializer_list<int64_t> candidates, int64_t fallback) {
  for (int64_t c : candidates)
    if (c > 0 && extent % c == 0) return c;
  return fallback;
}

}  // namespace tessel::ops
