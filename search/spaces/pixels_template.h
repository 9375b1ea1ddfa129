// The schedule template of a convolution over its pixels (ops/conv2d_pixels.h): the knobs of
// ops::PixelsConfig for a workload "pixels:N,C,H,W,OC", their choices derived from the shape and
// the target. Under 16 registers the layout pass computes 1x1 layers at 7x7 this way, so without
// it their workloads had no space and tune-model left them out.
//
// Knobs: the split of the H*W pixels into [tiles, pixels per register tile] (tiles up to what the
// accumulators allow beside the output block's vectors, partial last tiles where they pay), the
// parallel loop's order (output blocks outside pixel tiles, the default, or inside), and the weight
// prefetch (the target's distance, the default, or none), and the input blocks per slice outside
// the pixel tiles (PixelsConfig::channel_blocks: 0, the loop order before the knob, first, so older
// records keep their points; then 1, 2 and 4 below the input blocks; with slices the threads share
// the output blocks alone and the parallel knob changes nothing). The default configuration is the
// target's fallback (ops::pixels_fallback_config), so it lowers to the ops/ default schedule.
#pragma once
#include <memory>

#include "ops/conv2d_pixels.h"
#include "search/spaces/schedule_template.h"
#include "target/target.h"

namespace tessel::search {

std::shared_ptr<const ScheduleTemplate> make_pixels_template(const ops::PixelsShape& shape, const Target& target);

}  // namespace tessel::search
