// 3×3 convolution by Winograd's minimal filtering algorithm F(m×m, 3×3) (Lavin and Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2016), in the blocked layout of conv2d_nchwc, with
// its CPU schedule. Each m×m output tile costs an α×α element-wise product (α = m + 2) instead of
// 9·m² multiply-adds: for m = 2, 2.25× fewer, and the channel reduction of each of the α² products
// is one matrix multiply over all tiles, which runs near the FMA peak where a direct convolution on
// a small image (7×7, 14×14) does not.
//
// Three stages inside one kernel, each in parallel at the root, or the first two computed per chunk
// of output tile rows, the chunks in parallel (WinogradConfig::chunk_tile_rows):
//   input transform  V[ε][ν][p][c]  = (Bᵀ d_p B)[ε][ν] for input tile p, channel c (tag "winograd_input")
//   batched GEMM     M[ε][ν][p][o]  = Σ_c V[ε][ν][p][c] · U[ε][ν][o/ob][c][o%ob]   (tag "winograd_gemm")
//   output transform Y[n, o/ob, y, x, o%ob] = (Aᵀ M_p A)[y%m][x%m]                  (tag "conv2d_winograd")
// The weight transform U = G g Gᵀ is done once at compile time (winograd_weights), as TVM's
// graph compiler pre-transforms constant weights; U is packed in panels of ob output channels as
// the GEMM schedule's right-hand side. Element-wise consumers (bias, ReLU, residual add) are fused
// into the output transform's loop.
#pragma once
#include "ir/schedule.h"
#include "ops/conv2d_params.h"
#include "runtime/ndarray.h"
#include "target/target.h"

namespace tessel::ops {

// Output tile sizes with transform matrices: 2 (α = 4, transforms of ±1 only) and 4 (α = 6).
bool winograd_tile_supported(int64_t m);

// How much the transforms of F(m×m, 3×3) scale a value on its way to an output: the largest sum of
// |coefficients| of a row of Aᵀ, squared, times that of Bᵀ, squared (36 for m = 2, 36100 for m = 4).
// Rounding errors grow with it, so it scales the tolerance of a tuning measurement.
int64_t winograd_transform_scale(int64_t m);

// `data` [N, C/ib, H, W, ib] (NCHWc), `weights` [α, α, O/ob, C, ob] (winograd_weights), stride 1,
// dilation 1, groups 1, symmetric `padding`; the output is [N, O/ob, OH, OW, ob].
Tensor conv2d_winograd_nchwc(const Tensor& data, const Tensor& weights, std::array<int64_t, 2> padding, int64_t m,
                             const std::string& name = "conv2d_winograd");

// U[ε][ν][o/ob][c][o%ob] = (G g_oc Gᵀ)[ε][ν] of an OIHW float32 3×3 kernel g, computed in double.
NDArray winograd_weights(const NDArray& oihw, int64_t m, int64_t ob);

// The output tile m for which the Winograd convolution replaces the direct one for a 3×3, stride-1,
// groups-1 convolution of these channels and output size, or 0 to keep the direct one. Measured on
// AVX2 (Zen 3, 2 threads, ResNet-18's layers, against conv2d_nchwc's default schedule): m = 4 runs
// 2.3-2.8× faster wherever it makes 16 tiles or more (56×56 to 14×14); on 7×7, its 4 tiles leave
// the GEMM streaming 36 weight matrices for 4 rows (0.93×), and m = 2 (16 tiles) runs 1.7× faster.
// m = 4 takes 49 tiles or more: on 14×14 its 16 tiles stream 36 weight matrices (9.4 MB for 256
// channels) for 16 rows, m = 2's 49 tiles 16 matrices; on the Cascade Lake Xeon, against oneDNN
// in the same run (256 channels, two runs each), m = 2 ran 1.17 and 1.17 against 0.98 and 0.91 on
// one AVX-512 core, 1.62 and 1.20 against 1.34 and 0.93 on two, 1.70 and 1.66 against 1.50 and 1.44
// on one core under the AVX2 ceiling, and 1.89 and 1.80 against 1.95 and 1.95 on two (the one case
// it lost); ResNet-18 on one AVX-512 core 28.9 -> 27.9 ms (medians of 4 alternating runs).
// Fewer than 16 tiles, or fewer than 64 channels (not measured), keep the direct convolution.
int64_t winograd_tile(int64_t in_channels, int64_t out_channels, int64_t out_height, int64_t out_width);

// A Winograd convolution workload ("winograd:N,C,H,W,OC,P,M"): N×C×H×W input, OC 3×3 filters,
// stride 1, padding P on every side, output tiles M×M.
struct WinogradShape {
  int64_t n, c, h, w, oc, pad, tile;
  int64_t out_h() const { return h + 2 * pad - 2; }
  int64_t out_w() const { return w + 2 * pad - 2; }
  int64_t tiles() const { return n * ((out_h() + tile - 1) / tile) * ((out_w() + tile - 1) / tile); }
  // The direct convolution's multiply-adds, twice: the effective FLOPs papers report for Winograd.
  double flops() const { return 2.0 * n * oc * out_h() * out_w() * c * 9; }
};

// The channel block of the data a Winograd convolution of `channels` inputs reads on `target`: the
// block a convolution producing them writes (choose_conv2d_blocks' output block), so no layout
// transform sits between two Winograd convolutions. The input transform reads any block alike.
int64_t winograd_input_block(int64_t channels, const Target& target);

// The Winograd convolution of `shape` in the blocks the layout pass feeds it on `target`: data in
// winograd_input_block's block, the weights in panels of the output block. Inputs: data, weights.
struct WinogradInstance {
  Tensor data, weights, output;
};
WinogradInstance winograd_instance(const WinogradShape& shape, const Target& target);

// One configuration of the Winograd schedule: the GEMM stage's register tile of `rows` tiles × the
// output block, its channel loop split by `k_unroll` (the inner part unrolled if unroll_k).
struct WinogradConfig {
  int64_t rows = 1;
  int64_t k_unroll = 1;
  bool unroll_k = true;
  // Output tile rows per chunk: the input transform and the products of a chunk's tiles are
  // computed right before its output, in cache; 0: each stage whole, at the root.
  int64_t chunk_tile_rows = 0;
  // Bytes ahead of its reads that the GEMM stage prefetches the transformed weights U in its
  // channel loop, 0 for none (CpuDescription::winograd_prefetch_bytes).
  int64_t prefetch_bytes = 0;
  // Input channels per step of the GEMM's outer channel loop, which then runs outside the register
  // tiles: each slice of a U panel serves every tile of the panel while it is in L1, and U streams
  // from memory at an even rate (winograd_channel_slice). 0: each register tile runs over all the
  // channels, re-reading the panel once per tile. A multiple of k_unroll dividing the channels.
  int64_t channel_slice = 0;
};

// The fallback configuration: as many rows as the accumulators allow beside the output block's
// vectors (ops/cpu_tiles.h), at most the tiles; 4 channels per unrolled step (a divisor of C);
// chunks of the fewest tile rows whose V and M fit in L2 beside U, in an equal number per thread
// (winograd_chunk_tile_rows), where U and one tile row's fit, else none; the target's prefetch;
// winograd_channel_slice's channel slice.
WinogradConfig winograd_fallback_config(const Tensor& output, const Target& target);

// The default channel slice (WinogradConfig::channel_slice): 32 channels where U is prefetched, the
// stages are whole (no chunk of tile rows: U does not fit in L2 beside them), the tiles take more
// than one register tile and 32 is a multiple of k_unroll dividing the channels; else 0.
int64_t winograd_channel_slice(int64_t channels, int64_t tiles, const WinogradConfig& config);

// The chunk sizes a Winograd convolution's output (or a fused group's output reading it) can be
// split into: the divisors of its tile rows below their number.
std::vector<int64_t> winograd_chunk_choices(const Tensor& output);

// The default chunk for `cpu` (WinogradConfig::chunk_tile_rows), 0 for none.
int64_t winograd_chunk_tile_rows(const Tensor& output, const CpuDescription& cpu);

// The CPU schedule of a conv2d_winograd_nchwc output (or of a fused group's output reading it):
// each stage at the root, in parallel, or the input transform and GEMM per chunk of the output;
// the GEMM with the register tile of ops/gemm.h. Throws UserError if a factor is not positive, the
// chunk does not divide the tile rows or the channel slice is not a multiple of k_unroll dividing
// the channels.
Schedule schedule_conv2d_winograd(const Tensor& output, const WinogradConfig& config);

}  // namespace tessel::ops
