// Register-tile rules of ops/cpu_tiles.h.
#include "ops/cpu_tiles.h"

#include <algorithm>

namespace tessel::ops {

int64_t accumulator_budget(const CpuDescription& cpu, int64_t operand_vectors, int64_t cap) {
  int64_t free_registers = cpu.vector_registers - operand_vectors - 1;
  return std::max<int64_t>(1, std::min(cap, free_registers));
}

}  // namespace tessel::ops
