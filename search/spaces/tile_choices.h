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

// split_knob(name, extent, parts, max_inner) (parts 2 or 3: [outer, (middle,) tile]), plus, when
// ops::partial_register_tiles(cpu), [ceil(extent / (m·t)), (m,) t] for every tile t up to max_inner that
// does not divide extent and middle factors m of 1, 2, 4, 8 (up to max_inner, with m·t <= extent).
Knob tile_split_knob(const std::string& name, int64_t extent, int parts, int64_t max_inner, const CpuDescription& cpu);

}  // namespace tessel::search
