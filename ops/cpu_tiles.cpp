// Register-tile rules of ops/cpu_tiles.h.
#include "ops/cpu_tiles.h"

#include <algorithm>

#include "ops/tiling.h"

namespace tessel::ops {

int64_t accumulator_budget(const CpuDescription& cpu, int64_t operand_vectors, int64_t cap) {
  int64_t free_registers = cpu.vector_registers - operand_vectors - 1;
  return std::max<int64_t>(1, std::min(cap, free_registers));
}

namespace {

// Columns by which the last tile of `tile` columns over `extent` falls short of `latency_tile`.
int64_t last_tile_shortfall(int64_t extent, int64_t tile, int64_t latency_tile) {
  int64_t last = extent % tile;
  return last == 0 ? 0 : std::max<int64_t>(0, latency_tile - last);
}

}  // namespace

int64_t register_tile_size(int64_t extent, int64_t limit, int64_t latency_tile, const CpuDescription& cpu) {
  int64_t divisor = largest_divisor_at_most(extent, limit);
  if (!partial_register_tiles(cpu) || 4 * divisor >= 3 * limit) return divisor;
  int64_t tiles = (extent + limit - 1) / limit;
  int64_t balanced = (extent + tiles - 1) / tiles;
  int64_t smaller = balanced - 1;
  bool smaller_waits_less = smaller >= latency_tile && last_tile_shortfall(extent, smaller, latency_tile) <
                                                           last_tile_shortfall(extent, balanced, latency_tile);
  return smaller_waits_less ? smaller : balanced;
}

}  // namespace tessel::ops
