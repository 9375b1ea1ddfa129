// The kernel of a fused group of graph nodes (chosen by the "fuse" graph pass): one tensor
// expression made of the nodes' own expressions (ir/graph/op.h), scheduled by the default schedule
// of its anchor (the convolution, dense or pooling) with the other nodes' stages inlined: a
// convolution's batch-norm scale, activation, residual add or clip are computed in the
// convolution's output loop, an element-wise chain in the loop of the reduction it feeds, never
// in a pass of their own over memory. A bias added to a convolution's or dense layer's sum
// becomes the sum's starting value (ops/graph/fold_addend.h), so no loop adds it.
//
//   GroupKernel k = group_kernel(g, {conv, bias, relu}, relu_output);
//   LoweredFunc f = lower(schedule_group(k, target), k.args(), "fused_0", target);   // inputs..., output
#pragma once
#include <string>
#include <vector>

#include "ir/graph/graph.h"
#include "ir/schedule.h"
#include "target/target.h"

namespace tessel::ops {

struct GroupKernel {
  std::vector<graph::ValueId> inputs;  // the graph values the kernel reads, in argument order
  std::vector<Tensor> placeholders;    // one per input
  graph::ValueId output_value = -1;
  Tensor output;                       // what the kernel computes (its last argument)
  std::vector<Tensor> node_outputs;    // every node's outputs, the anchor's and the output's included
  Tensor anchor;                       // the anchor's output, undefined when the group has none
  std::vector<Tensor> tile_stages;     // a fused block's: computed per row tile of the output (ops/block_schedule.h)
  // Constants the kernel prefetches for a later kernel and does not read (graph::FusedGroup::prefetched):
  // arguments after the inputs.
  std::vector<graph::ValueId> prefetched;
  std::vector<Tensor> prefetch_placeholders;  // one per prefetched value
  // Identical for groups computing the same thing on the same types (operators, attributes,
  // wiring), so equal groups share one compiled kernel.
  std::string key;

  std::vector<Tensor> args() const;  // placeholders, prefetch placeholders, then output
};

// The expression of value `output` computed by `nodes` (producers first), every value they read
// from outside becoming an input. The anchor is the last node whose op pattern is
// complex-out-fusable or opaque; `tile_values`, a fused block's (graph::FusedGroup::tile_values),
// become its tile stages. Throws UserError (naming the node) if an operator refuses its inputs.
GroupKernel group_kernel(const graph::Graph& g, const std::vector<graph::NodeId>& nodes, graph::ValueId output,
                         const std::vector<graph::ValueId>& tile_values = {});

// Makes `values` (constants of the graph) arguments the kernel prefetches (FusedGroup::prefetched);
// the key names them, so a group that prefetches shares its kernel with no group that does not.
void add_prefetched(GroupKernel& kernel, const graph::Graph& g, const std::vector<graph::ValueId>& values);

// Prefetches kernel.prefetched in `s`, a schedule of kernel.output (Stage::prefetch_whole), in the
// loops of the last reduction stage (the anchor's accumulator, whose FMAs hide them), in shares
// of at most 16 lines.
void schedule_prefetched(const GroupKernel& kernel, Schedule& s);

// The anchor's default schedule for `target` (the output's when there is no anchor; a fused
// block's schedule, ops/block_schedule.h, when it has tile stages) applied to the output, with the
// stages of the other nodes inlined where they are read.
Schedule schedule_group(const GroupKernel& kernel, const Target& target);

// Inlines into `s`, a schedule of kernel.output (the anchor's default or a tuned configuration's,
// search/spaces/schedule_template.h's schedule_output), the stages of the group's other nodes
// still at the root (tile stages excepted), so they run where they are read.
void inline_group_stages(const GroupKernel& kernel, Schedule& s);

}  // namespace tessel::ops
