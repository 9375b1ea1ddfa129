// Software prefetch (Stage::prefetch, TVM's s[C].prefetch, Halide's Func::prefetch): at the top of
// each iteration of a loop, hint the cache lines of a tensor that the iteration `offset` steps
// later will read. Stage::prefetch_whole instead spreads all of a tensor over the iterations of a
// loop nest: a later kernel's weights, fetched while this one computes
// (passes/graph/prefetch_weights.cpp).
//
// Why: a kernel's first pass over a weight tile that is not in the caches waits on memory at every
// 4 KiB page, where the hardware prefetchers stop. In a model, each layer's weights come from
// memory (the other layers pushed them out), and the 1x1 convolutions on small images, which read
// each weight tile for few pixels, lose a fifth of their time to it.
//
// The region an iteration reads is found as bound inference finds a producer's: every TensorRead
// of the tensor in the loop's body, with the loops inside the body relaxed to their ranges and the
// loop's own variable advanced by `offset`. Trailing dimensions read whole are merged, so the
// prefetches walk the region's contiguous runs, one per 64-byte line (x86 and Arm cores alike).
// Indices past the tensor's end stay as they are: a prefetch of any address is harmless, and on a
// packed layout the run after the last iteration's is the next tile's start, which is the one to
// fetch.
#pragma once
#include "ir/stmt.h"
#include "ir/tensor.h"

namespace tessel {

// The prefetch statements to put first in the body of the loop over `loop_var` (`body` is that
// loop's body): a nest over the region `tensor` takes at loop_var + offset, its innermost loop
// unrolled over cache lines. UserError if the body does not read `tensor` or the region's extent
// is not constant.
Stmt prefetch_ahead(const Tensor& tensor, const Var& loop_var, int offset, const Stmt& body);

// Stage::prefetch_whole: the statements that prefetch the `iteration`th of `iterations` equal
// shares of all of `tensor`'s lines into the outer caches (prefetch_l2), in memory order, each
// starting the lines in `lead_bytes` ahead of its place.
Stmt prefetch_share(const Tensor& tensor, const Expr& iteration, int64_t iterations, int64_t lead_bytes = 0);

// The 64-byte lines `tensor` spans.
int64_t cache_lines(const Tensor& tensor);

}  // namespace tessel
