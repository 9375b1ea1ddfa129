// The Winograd convolution's schedule template: the knobs of ops/conv2d_winograd.h's schedule
// (ops::WinogradConfig) for a workload "winograd:N,C,H,W,OC,P,M", their choices derived from the
// shape and the target.
//
// Knobs: the split of the tiles into [outer, register rows] of the GEMM stage (rows bounded by the
// register file, partial last tiles where they pay), the split of its channel loop [outer, inner],
// whether the inner channel loop is unrolled, and, where the output has several tile rows, the
// tile rows per chunk (0, the stages whole, first; then the divisors of the tile rows: records
// from before the knob read 0, the schedule they were measured with), and the GEMM's channel slices
// outside its register tiles (WinogradConfig::channel_slice: 0 first, for the same reason; then 16,
// 32 and 64 where they divide the channels). The default configuration is the target's fallback
// (ops::winograd_fallback_config), so it lowers to the ops/ default schedule.
#pragma once
#include <memory>

#include "ops/conv2d_winograd.h"
#include "search/spaces/schedule_template.h"
#include "target/target.h"

namespace tessel::search {

std::shared_ptr<const ScheduleTemplate> make_winograd_template(const ops::WinogradShape& shape, const Target& target);

}  // namespace tessel::search
