// Software prefetch of the weights a kernel streams (Stage::prefetch), for the schedules whose
// weights come from memory in a model: each layer's weights were pushed out of the caches by the
// layers between two calls, and the hardware prefetchers stop at every 4 KiB page. The 1x1
// convolutions (conv2d_nchwc and its pixel form) prefetch CpuDescription::prefetch_bytes ahead
// (the target's -prefetch attribute; 0 for none), the Winograd GEMM winograd_prefetch_bytes
// (-winograd-prefetch); why not the others: docs/graph.md, "Weight prefetch".
#pragma once
#include "ir/schedule.h"

namespace tessel::ops {

// Prefetches `weights` in `loop` of `stage`, `bytes_ahead` ahead of the reads, when one iteration
// of the loop reads `step_bytes` of them. Nothing when bytes_ahead is 0.
void prefetch_weights(Stage stage, const Tensor& weights, const IterVar& loop, int64_t step_bytes,
                      int64_t bytes_ahead);

}  // namespace tessel::ops
