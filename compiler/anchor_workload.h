// The operator-level workload of a fused group's anchor: which tuning task (search/task/task.h) a
// graph convolution or dense node is, so the records tuned for that operator apply to the group
// and `tessel tune-model` tunes the model's groups as operators.
//
// The mapping reads only the node's attributes and its values' shapes, so the NCHW graph ops
// (conv2d: data [N,C,H,W], weight [O,C/g,KH,KW]) and the blocked ones of the layout pass (data
// [N,C/b,H,W,b], weight [O/ob,C/g/ib,KH,KW,ib,ob]) map to the same workload, but for the block of
// a depthwise convolution, which takes its producer's and is part of its workload:
//   conv2d, groups 1            -> conv2d:N,C,H,W,OC,K,S,P
//   conv2d, one group a channel -> depthwise:N,C,H,W,K,S,P (NCHW) or depthwise:N,C,H,W,K,S,P,B
//   dense X[M,K]·W[N,K]ᵀ         -> gemm:M,N,K (also dense_packed, W in the GEMM's panels)
//   conv2d_winograd_nchwc        -> winograd:N,C,H,W,OC,P,M (the layout pass's Winograd convolution)
//   conv2d with pixel_tiles      -> pixels:N,C,H,W,OC (a 1x1 layer the layout pass computes over pixels)
//   a fused block                -> block:N,C,H,W,B/<stage>/... (ops/block_workload.h), its chain
// The workload specs hold square kernels, equal strides in both dimensions, symmetric equal pads
// and no dilation; any other anchor (grouped, dilated or transposed convolutions, pools, matmul)
// has no template and its group keeps the default schedule.
//
//   std::optional<search::WorkloadSpec> w = anchor_workload(g, group.anchor);
//   if (w) Task task(*w, target, "template", space->make_template(*w, target));
#pragma once
#include <optional>
#include <string>

#include "ir/graph/graph.h"
#include "passes/graph/fused_group.h"
#include "search/spaces/workload_spec.h"

namespace tessel {

// The workload of node `anchor` of `g` (named in the command-line form, e.g.
// "conv2d:1,64,56,56,64,3,1,1"), or nullopt when the node has none (see above) or is -1.
std::optional<search::WorkloadSpec> anchor_workload(const graph::Graph& g, graph::NodeId anchor);

// The workload of `group`: its anchor's, or a fused block's (tile_values) chain of convolutions,
// every one of which must have a workload of its own; nullopt otherwise.
std::optional<search::WorkloadSpec> group_workload(const graph::Graph& g, const graph::FusedGroup& group);

}  // namespace tessel
