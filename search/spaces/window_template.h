// The schedule templates of the blocked-layout window reductions, conv2d NCHWc and depthwise
// NCHWc: the knobs of ops/window_schedule.h's register-tiled schedule (ops::WindowConfig), their
// choices derived from the shape and the target.
//
// The output [N, C/b, OH, OW, b] (b: the channel block the target's vector width gives) is tiled
// into register tiles of rows × columns × the channel block; the accumulator runs the reduction
// outside the tile. Knobs: the output-row split [outer, tile rows], the output-column split
// [outer, tile columns] (tile columns bounded by the register file), the order of the reduction
// axes (among candidates that keep the channel block innermost-friendly), and whether the kernel
// width and height loops are unrolled. Channels × outer rows run in parallel; the padding stage
// runs where the ops/ default puts it (conv2d: at the root; depthwise: inline). Each configuration
// maps to a WindowConfig run by the operator's ops/ schedule; the default configuration is the
// target's fallback, so it lowers to the ops/ default schedule.
#pragma once
#include <memory>

#include "datasets/workloads.h"
#include "search/spaces/schedule_template.h"
#include "target/target.h"

namespace tessel::search {

// The widest column tile the window templates offer for `output` (a blocked window operator's):
// as many columns as kWindowAccumulatorCap accumulators give its block, at least half the vector
// registers. It follows the target, not the fallback's choice, so a better default tile leaves
// the space, and the numbering of the records measured over it, as it was.
int64_t widest_column_tile(const Tensor& output, const CpuDescription& cpu);

std::shared_ptr<const ScheduleTemplate> make_conv2d_template(const Conv2dShape& shape, const Target& target);
std::shared_ptr<const ScheduleTemplate> make_depthwise_template(const DepthwiseShape& shape, const Target& target);

}  // namespace tessel::search
