// Register-tile knob choices of the CPU templates (search/spaces/tile_choices.h).
#include "search/spaces/tile_choices.h"

#include <algorithm>

#include "ops/cpu_tiles.h"
#include "support/error.h"

namespace tessel::search {

int64_t max_register_tile(const CpuDescription& cpu, int64_t default_tile) {
  return std::max<int64_t>(cpu.vector_registers / 2, default_tile);
}

nlohmann::json tile_choice(int64_t extent, int64_t tile, int64_t middle) {
  int64_t outer = (extent + std::max<int64_t>(middle, 1) * tile - 1) / (std::max<int64_t>(middle, 1) * tile);
  return middle == 0 ? nlohmann::json{outer, tile} : nlohmann::json{outer, middle, tile};
}

Knob tile_split_knob(const std::string& name, int64_t extent, int parts, int64_t max_inner, const CpuDescription& cpu,
                     const nlohmann::json& default_choice) {
  TESSEL_CHECK(parts == 2 || parts == 3, "tile knob '", name, "' splits into 2 or 3 parts, not ", parts);
  Knob knob = split_knob(name, extent, parts, max_inner);
  if (ops::partial_register_tiles(cpu)) {
    for (int64_t tile = 2; tile <= std::min(max_inner, extent); ++tile) {
      if (extent % tile == 0) continue;
      for (int64_t middle : {1, 2, 4, 8}) {
        if (middle > 1 && (parts == 2 || middle > max_inner || middle * tile > extent)) break;
        knob.choices.push_back(tile_choice(extent, tile, parts == 2 ? 0 : middle));
      }
    }
  }
  if (std::find(knob.choices.begin(), knob.choices.end(), default_choice) == knob.choices.end())
    knob.choices.push_back(default_choice);
  return knob;
}

}  // namespace tessel::search
