// Register-tile rules of ops/cpu_tiles.h.
#include "ops/cpu_tiles.h"

#include <algorithm>

#include "ops/tiling.h"

namespace tessel::ops {

int64_t accumulator_budget(const CpuDescription& cpu, int64_t operand_vectors, int64_t cap) {
  int64_t free_registers = cpu.vector_registers - operand_vectors - 1;
  return std::max<int64_t>(1, std::min(cap, free_registers));
}

int64_t register_tile_size(int64_t extent, int64_t limit, const CpuDescription& cpu) {
  int64_t divisor = largest_divisor_at_most(extent, limit);
  if (!partial_register_tiles(cpu) || 4 * divisor >= 3 * limit) return divisor;
  int64_t tiles = (extent + limit - 1) / limit;
  return (extent + tiles - 1) / tiles;
}

}  // namespace tessel::ops
