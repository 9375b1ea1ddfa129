// Register-tile knobs of the CPU templates (gemm_template.h, window_template.h), with choices
// derived from the target: how many rows or columns a register tile may have (half the vector
// registers: a taller tile cannot hold its accumulators two vectors wide), and, where partial
// register tiles pay (ops::partial_register_tiles: 16 registers), tiles that do not divide the
// extent, the last tile partial. With 32 registers the spaces stay exactly as the AVX-512 sets were
// recorded in.
#pragma once
#include <cstdint>
#include <string>

#include "search/spaces/knob.h"
#include "target/cpu.h"

namespace tessel::search {

// The most rows (or columns) of a register tile the templates offer on `cpu`: half the vector
// registers, or the default configuration's tile if that is larger (a tile one vector wide).
int64_t max_register_tile(const CpuDescription& cpu, int64_t default_tile);

// The tile knobs' choice for tiles of `tile` (and `middle` of them per middle loop in a 3-part
// knob; 0 for a 2-part one): [ceil(extent / (middle·tile)), (middle,) tile].
nlohmann::json tile_choice(int64_t extent, int64_t tile, int64_t middle = 0);

// split_knob(name, extent, parts, max_inner) (parts 2 or 3: [outer, (middle,) tile]), plus, when
// ops::partial_register_tiles(cpu), tile_choice(extent, t, m) for every tile t up to max_inner that
// does not divide extent and middle factors m of 1, 2, 4, 8 (up to max_inner, with m·t <= extent),
// plus `default_choice` (the template's default tile, a tile_choice) where it is none of those: a
// default is always a point of its space, as tune-model's final selection measures it as one (the
// 2-row tiles of 7-row 1x1 outputs on AVX-512 divide nothing). Added last, so the points of records
// measured before keep their values.
Knob tile_split_knob(const std::string& name, int64_t extent, int parts, int64_t max_inner, const CpuDescription& cpu,
                     const nlohmann::json& default_choice);

}  // namespace tessel::search
