// The schedule templates of the blocked-layout window reductions, conv2d NCHWc and depthwise
// NCHWc: ops/window_schedule.h's register-tiled schedule with its choices opened up.
//
// The output [N, C/b, OH, OW, b] is tiled into register tiles of rows × columns × the channel
// block; the accumulator runs the reduction outside the tile. Knobs: the output-row split
// [outer, tile rows], the output-column split [outer, tile columns], the order of the reduction
// axes (among candidates that keep the channel block innermost-friendly), and whether the kernel
// width and height loops are unrolled. Channels × outer rows run in parallel; the padding stage
// runs where the ops/ default puts it (conv2d: at the root; depthwise: inline). The default
// configuration is the ops/ default schedule's.
#pragma once
#include <memory>

#include "datasets/workloads.h"
#include "search/spaces/schedule_template.h"

namespace tessel::search {

std::shared_ptr<const ScheduleTemplate> make_conv2d_template(const Conv2dShape& shape, const Target& target);
std::shared_ptr<const ScheduleTemplate> make_depthwise_template(const DepthwiseShape& shape, const Target& target);

}  // namespace tessel::search
