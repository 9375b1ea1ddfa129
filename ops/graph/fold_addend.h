// Folding an addend into the sum it follows: out = sum(...) + e, where e does not read the sum (a
// convolution's or a dense layer's bias), becomes one sum that starts at e (ir/tensor.h's `init`).
// The accumulators then start at the bias instead of zero, and the output loop no longer adds it:
// one vector operation fewer per output element. Where a convolution has few input channels that
// is a sizeable part of its work: MobileNet-V2's first expansion (16 channels) gives each
// accumulator 16 FMAs, then a bias add, a max, a min and a store; its epilogue took 14% of its
// time on Zen 4 (perf, stop 43).
//
//   Tensor conv = conv2d_nchwc(x, w, p);
//   Tensor biased = compute(conv.shape(), [&](const std::vector<Var>& i) { return conv(i) + b(...); }, "add");
//   Tensor folded = fold_addend_into_sum(biased, conv);   // conv's sum, starting at b(...)
#pragma once
#include "ir/tensor.h"

namespace tessel::ops {

// `sum`'s computation starting at the addend of `added`, whose body must be sum(i) + e or e + sum(i),
// i its own axes (or 0 along sum's dimensions of extent 1), with e reading no element of `sum`;
// `sum` must be a compute whose body is a sum with no initial value, of `added`'s shape and type.
// The result keeps sum's name and tag. Undefined where any of that does not hold.
Tensor fold_addend_into_sum(const Tensor& added, const Tensor& sum);

}  // namespace tessel::ops
