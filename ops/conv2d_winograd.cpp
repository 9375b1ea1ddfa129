// Winograd 3×3 convolution in the blocked layout, and its CPU schedule (ops/conv2d_winograd.h).
#include "ops/conv2d_winograd.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "ops/conv2d_nchwc.h"
#include "ops/cpu_tiles.h"
#include "ops/gemm.h"
#include "ops/op_schedule.h"
#include "ops/pad.h"
#include "ops/tiling.h"
#include "ops/weight_prefetch.h"
#include "ops/window_schedule.h"
#include "support/error.h"
#include "support/registry.h"

namespace tessel::ops {

namespace {

using Matrix = std::vector<std::vector<double>>;

// The transform matrices of F(m×m, 3×3): Bᵀ (α×α, input), G (α×3, kernel), Aᵀ (m×α, output).
// Interpolation points 0, ±1 (m = 2) and 0, ±1, ±2 (m = 4), and the point at infinity.
struct Transforms {
  Matrix bt, g, at;
};

const Transforms& transforms(int64_t m) {
  static const Transforms f2{{{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
                             {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}},
                             {{1, 1, 1, 0}, {0, 1, -1, -1}}};
  static const Transforms f4{{{4, 0, -5, 0, 1, 0},
                              {0, -4, -4, 1, 1, 0},
                              {0, 4, -4, -1, 1, 0},
                              {0, -2, -1, 2, 1, 0},
                              {0, 2, -1, -2, 1, 0},
                              {0, 4, 0, -5, 0, 1}},
                             {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}},
                             {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};
  if (!winograd_tile_supported(m)) user_error("conv2d_winograd: output tile ", m, " is not supported; use 2 or 4");
  return m == 2 ? f2 : f4;
}

// Σ_i row[i]·term(i) without the zero terms, and with ±1 as additions and subtractions: the
// transforms of F(2×2, 3×3) become additions only.
Expr combine(const std::vector<double>& row, const std::function<Expr(int)>& term) {
  Expr sum;
  for (int i = 0; i < static_cast<int>(row.size()); ++i) {
    double c = row[i];
    if (c == 0) continue;
    Expr t = term(i);
    if (!sum.defined()) {
      sum = c == 1 ? t : t * Expr(c);
    } else if (c == 1 || c == -1) {
      sum = c == 1 ? sum + t : sum - t;
    } else {
      sum = sum + t * Expr(c);
    }
  }
  return sum;
}

// The row of `matrix` that `index` selects, combined over term: a chain of selects which the
// schedule's unrolling of `index` folds to the one row that applies.
Expr combine_row(const Matrix& matrix, const Expr& index, const std::function<Expr(int)>& term) {
  Expr chosen = combine(matrix.back(), term);
  for (int r = static_cast<int>(matrix.size()) - 2; r >= 0; --r)
    chosen = select(eq(index, Expr(int64_t{r})), combine(matrix[r], term), chosen);
  return chosen;
}

void check_shapes(const Tensor& data, const Tensor& weights, int64_t alpha) {
  if (data.ndim() != 5 || weights.ndim() != 5)
    user_error("conv2d_winograd: data must be 5-D (NCHWc) and weights 5-D ([α, α, O/ob, C, ob]); got ", data.ndim(),
               "-D and ", weights.ndim(), "-D");
  const auto& d = data.shape();
  const auto& u = weights.shape();
  if (u[0] != alpha || u[1] != alpha || u[3] != d[1] * d[4])
    user_error("conv2d_winograd: the weights must be [", alpha, ", ", alpha, ", O/ob, ", d[1] * d[4],
               ", ob] for this tile and data ", shape_str(d), "; they are ", shape_str(u));
}

}  // namespace

bool winograd_tile_supported(int64_t m) { return m == 2 || m == 4; }

int64_t winograd_transform_scale(int64_t m) {
  auto widest_row = [](const Matrix& matrix) {
    double widest = 0;
    for (const auto& row : matrix) {
      double sum = 0;
      for (double c : row) sum += std::abs(c);
      widest = std::max(widest, sum);
    }
    return static_cast<int64_t>(std::ceil(widest));
  };
  const Transforms& f = transforms(m);
  int64_t a = widest_row(f.at), b = widest_row(f.bt);
  return a * a * b * b;
}

Tensor conv2d_winograd_nchwc(const Tensor& data, const Tensor& weights, std::array<int64_t, 2> padding, int64_t m,
                             const std::string& name) {
  const Transforms& f = transforms(m);
  int64_t alpha = m + 2;
  check_shapes(data, weights, alpha);
  const auto& d = data.shape();
  int64_t ib = d[4], channels = d[1] * ib, ob = weights.shape()[4], out_channels = weights.shape()[2] * ob;
  int64_t oh = conv_output_extent(d[2], 3, 1, padding[0], 1, name.c_str());
  int64_t ow = conv_output_extent(d[3], 3, 1, padding[1], 1, name.c_str());
  int64_t tiles_h = (oh + m - 1) / m, tiles_w = (ow + m - 1) / m, tiles = d[0] * tiles_h * tiles_w;
  // Padded so that every tile, the partial ones at the bottom and right included, reads inside it.
  Tensor padded = pad(data, {0, 0, padding[0], padding[1], 0},
                      {0, 0, tiles_h * m + 2 - d[2] - padding[0], tiles_w * m + 2 - d[3] - padding[1], 0},
                      make_zero(data.dtype()), name + ".pad");
  Tensor v = compute({alpha, alpha, tiles, channels}, [&](Var e, Var nu, Var p, Var c) {
    Expr n = p / Expr(tiles_h * tiles_w), th = p / Expr(tiles_w) % Expr(tiles_h), tw = p % Expr(tiles_w);
    auto input = [&](int r, int s) {
      return padded(n, c / Expr(ib), th * Expr(m) + Expr(int64_t{r}), tw * Expr(m) + Expr(int64_t{s}), c % Expr(ib));
    };
    return combine_row(f.bt, nu, [&](int s) { return combine_row(f.bt, e, [&](int r) { return input(r, s); }); });
  }, name + ".input", "winograd_input");
  IterVar k = reduce_axis(channels, "c");
  Tensor product = compute({alpha, alpha, tiles, out_channels}, [&](Var e, Var nu, Var p, Var o) {
    return sum(v(e, nu, p, k) * weights(e, nu, o / Expr(ob), k, o % Expr(ob)), {k});
  }, name + ".product", "winograd_gemm");
  return compute({d[0], out_channels / ob, oh, ow, ob}, [&](Var n, Var oc, Var y, Var x, Var oi) {
    Expr p = (n * Expr(tiles_h) + y / Expr(m)) * Expr(tiles_w) + x / Expr(m), o = oc * Expr(ob) + oi;
    return combine_row(f.at, y % Expr(m), [&](int e) {
      return combine_row(f.at, x % Expr(m), [&](int nu) { return product(Expr(int64_t{e}), Expr(int64_t{nu}), p, o); });
    });
  }, name, "conv2d_winograd");
}

NDArray winograd_weights(const NDArray& oihw, int64_t m, int64_t ob) {
  const Transforms& f = transforms(m);
  const auto& s = oihw.shape();
  if (oihw.ndim() != 4 || s[2] != 3 || s[3] != 3 || ob <= 0 || s[0] % ob != 0)
    user_error("winograd_weights: the kernel must be [O, I, 3, 3] with O a multiple of ", ob, "; it is ",
               shape_str(s));
  int64_t alpha = m + 2, outs = s[0], ins = s[1];
  NDArray u = NDArray::empty({alpha, alpha, outs / ob, ins, ob}, oihw.dtype());
  const float* g = oihw.data_as<float>();
  float* out = u.data_as<float>();
  for (int64_t o = 0; o < outs; ++o)
    for (int64_t i = 0; i < ins; ++i) {
      const float* k = g + (o * ins + i) * 9;
      for (int64_t e = 0; e < alpha; ++e)
        for (int64_t nu = 0; nu < alpha; ++nu) {
          double value = 0;  // (G k Gᵀ)[e][nu]
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) value += f.g[e][r] * k[r * 3 + c] * f.g[nu][c];
          out[(((e * alpha + nu) * (outs / ob) + o / ob) * ins + i) * ob + o % ob] = static_cast<float>(value);
        }
    }
  return u;
}

int64_t winograd_tile(int64_t in_channels, int64_t out_channels, int64_t out_height, int64_t out_width) {
  constexpr int64_t kMinTiles = 16, kMinTilesOf4 = 49, kMinChannels = 64;
  if (in_channels < kMinChannels || out_channels < kMinChannels) return 0;
  for (int64_t m : {4, 2})
    if (((out_height + m - 1) / m) * ((out_width + m - 1) / m) >= (m == 4 ? kMinTilesOf4 : kMinTiles)) return m;
  return 0;
}

int64_t winograd_input_block(int64_t channels, const Target& target) {
  return choose_conv2d_blocks(channels, channels, 1, target).ob;
}

WinogradInstance winograd_instance(const WinogradShape& s, const Target& target) {
  int64_t ib = winograd_input_block(s.c, target), ob = choose_conv2d_blocks(s.c, s.oc, 1, target).ob;
  Tensor data = placeholder({s.n, s.c / ib, s.h, s.w, ib}, DataType::float32(), "data");
  Tensor weights = placeholder({s.tile + 2, s.tile + 2, s.oc / ob, s.c, ob}, DataType::float32(), "weights");
  return {data, weights, conv2d_winograd_nchwc(data, weights, {s.pad, s.pad}, s.tile)};
}

namespace {

// The stages behind a Winograd output (or a fused group's output reading one), and its rows of
// output tiles.
struct WinogradStages {
  Tensor input, product;  // V and M
  int64_t tile_rows;
};

WinogradStages stages_of(const Tensor& output) {
  Tensor product = find_by_tag(output, "winograd_gemm");
  int64_t m = product.shape()[0] - 2;
  return {find_by_tag(output, "winograd_input"), product, (output.shape()[2] + m - 1) / m};
}

// Whether the GEMM's channels split into slices of `slice`, each a whole number of k_unroll steps.
bool slice_fits(int64_t slice, int64_t channels, int64_t k_unroll) {
  return channels % slice == 0 && slice % k_unroll == 0;
}

std::vector<int64_t> chunk_choices(int64_t tile_rows) {
  std::vector<int64_t> choices;
  for (int64_t k = 1; k < tile_rows; ++k)
    if (tile_rows % k == 0) choices.push_back(k);
  return choices;
}

}  // namespace

std::vector<int64_t> winograd_chunk_choices(const Tensor& output) { return chunk_choices(stages_of(output).tile_rows); }

// The input transform and the products of all tiles (V and M) take 1.8 MB each for ResNet-18's
// 64-channel 56×56 layers: written to memory and read back, they cost more than the GEMM. A chunk
// of tile rows keeps its share of them in L2, but re-reads the transformed weights U for every
// chunk: chunks pay where U and a chunk's V and M fit in L2 together. Measured on the Cascade Lake
// Xeon (1 MB L2), C2 against oneDNN, medians of 3 alternating runs: one AVX-512 core 1.00 -> 1.67x
// (1860 -> 1093 us; 1 tile row per chunk, 2 rows 1.57x), two 1.42 -> 1.97x; under the AVX2 ceiling
// 1.57 -> 1.88x and 1.65 -> 1.91x. Where U alone outweighs L2 (2.4 MB at 28×28 with 128 channels)
// or a chunk would be the whole image, the stages stay whole.
int64_t winograd_chunk_tile_rows(const Tensor& output, const CpuDescription& cpu) {
  WinogradStages w = stages_of(output);
  int64_t weights = tensor_bytes(input_tensors(w.product)[1]);
  int64_t row_bytes = (tensor_bytes(w.input) + tensor_bytes(w.product)) / (output.shape()[0] * w.tile_rows);
  for (int64_t k : chunk_choices(w.tile_rows)) {  // the fewest rows: the most chunks to share out
    bool fits = weights + k * row_bytes <= cpu.l2_bytes;
    if (fits && (w.tile_rows / k) % cpu.threads == 0) return k;
  }
  return 0;
}

WinogradConfig winograd_fallback_config(const Tensor& output, const Target& target) {
  const CpuDescription& cpu = target.cpu();
  Tensor product = find_by_tag(output, "winograd_gemm");
  Tensor weights = input_tensors(product)[1];
  int64_t vectors = float_vectors(cpu, weights.shape()[4]), tiles = product.shape()[2];
  WinogradConfig config;
  int64_t accumulators = accumulator_budget(cpu, vectors, gemm_accumulator_cap(cpu));
  int64_t limit = std::max<int64_t>(1, accumulators / vectors);
  config.rows = register_tile_size(tiles, limit, latency_columns(vectors * float_lanes(cpu), cpu), cpu);
  config.k_unroll = largest_divisor_at_most(weights.shape()[3], 4);
  config.chunk_tile_rows = winograd_chunk_tile_rows(output, cpu);
  config.prefetch_bytes = cpu.winograd_prefetch_bytes;
  config.channel_slice = winograd_channel_slice(weights.shape()[3], tiles, config);
  return config;
}

// A register tile over all the channels reads its U panel from memory only on the first of the
// panel's tiles; the others find it in cache. Memory then idles while they run, and the stream's
// page crossings stall the first. Stepping the channels outside the tiles instead lets each 2-4
// KiB slice of the panel serve every tile at once, so U streams evenly under the FMAs; the
// accumulators then go through M between slices (LLVM keeps them in registers within one).
// Measured on the Intel Xeon (model 167), C12 (512 channels, 7x7, 3 register tiles of 6 under
// AVX2), bench conv2d --winograd --cache-flush, two alternating runs: one thread 2543-2617 ->
// 2080-2104 us under the AVX2 ceiling, 2195-2224 -> 1979-1987 on AVX-512; 64 channels a slice
// ran 2218-2720 and 2027-2031. Where chunks of tile rows keep V and M in L2 (C2, 56x56), the
// slices made it slower (1047-1065 -> 1365-1385 us under AVX2): those stay whole. Those figures
// had U prefetched 2 KiB ahead (the Xeon's default). Without the prefetch the slices halve the
// speed (Zen 5, one thread, C12 against oneDNN: 0.80-0.86 in slices, 1.33-1.38 whole; 2 KiB
// ahead, 1.21-1.26 and 1.22-1.35), so they come only with it. At Zen 5's default of 4 KiB they
// pay there too (1.53-1.63 against 1.35-1.37).
int64_t winograd_channel_slice(int64_t channels, int64_t tiles, const WinogradConfig& config) {
  constexpr int64_t kSlice = 32;
  bool streams = config.prefetch_bytes > 0 && config.chunk_tile_rows == 0 && tiles > config.rows;
  return streams && channels > kSlice && slice_fits(kSlice, channels, config.k_unroll) ? kSlice : 0;
}

namespace {

// The GEMM stage: a register tile of rows × ob (the weights' panel) accumulated over the input
// channels, as ops/gemm.h's schedule; (ε, ν) pairs and panels in parallel, unless the stage is
// computed in a chunk of the output, whose loop the threads share. U is prefetched in the channel
// loop: each of its vectors serves only `rows` FMAs, and one panel's channels run on into the
// next panel in memory (docs/graph.md, "Weight prefetch").
void schedule_product(Schedule& s, const Tensor& product, const WinogradConfig& config, bool parallel) {
  Tensor weights = input_tensors(product)[1];
  int64_t ob = weights.shape()[4];
  std::optional<Tensor> acc;
  if (config.channel_slice == 0) acc = s.cache_write(product);
  Stage c = s[product];
  auto [panels, lanes] = c.split(c.axis(3), ob);
  auto [row_tiles, row] = c.split(c.axis(2), config.rows);
  IterVar channels;
  if (acc) {
    c.reorder({c.axis(0), c.axis(1), panels, row_tiles, row, lanes});
    channels = schedule_register_accumulator(s[*acc], c, row_tiles, config.k_unroll, config.unroll_k, 2);
  } else {  // the channels in slices outside the register tiles (winograd_channel_slice)
    auto [slices, in_slice] = c.split(c.reduce_axis(0), config.channel_slice);
    IterVar unrolled;
    std::tie(channels, unrolled) = c.split(in_slice, config.k_unroll);
    c.reorder({c.axis(0), c.axis(1), panels, slices, row_tiles, channels, unrolled, row, lanes});
    if (config.unroll_k) c.unroll(unrolled);
  }
  if (parallel) c.parallel(c.fuse(c.fuse(c.axis(0), c.axis(1)), panels));
  c.unroll(row);
  c.vectorize(lanes);
  int64_t step_bytes = config.k_unroll * ob * weights.dtype().bytes();
  prefetch_weights(acc ? s[*acc] : c, weights, channels, step_bytes, config.prefetch_bytes);
}

// The input transform: tiles in parallel (unless computed in a chunk), the α×α outputs of a
// channel block unrolled so each input vector is loaded once.
void schedule_input(Schedule& s, const Tensor& v, int64_t ib, bool parallel) {
  Stage t = s[v];
  auto [blocks, lanes] = t.split(t.axis(3), ib);
  t.reorder({t.axis(2), blocks, t.axis(0), t.axis(1), lanes});
  if (parallel) t.parallel(t.axis(2));
  t.unroll(t.axis(0));
  t.unroll(t.axis(1));
  t.vectorize(lanes);
}

// The output transform with the fused element-wise tail: each m×m tile of a channel block
// unrolled; channel blocks in parallel. With chunks of `chunk_tile_rows` tile rows, the chunks
// are the outermost loop and the parallel one, which it returns.
std::optional<IterVar> schedule_output(Schedule& s, const Tensor& output, int64_t m, int64_t chunk_tile_rows) {
  Stage o = s[output];
  std::optional<IterVar> chunks;
  IterVar rows = o.axis(2);
  if (chunk_tile_rows > 0) std::tie(chunks, rows) = o.split(rows, m * chunk_tile_rows);
  auto [tile_rows, y] = o.split(rows, m);
  auto [tile_cols, x] = o.split(o.axis(3), m);
  if (chunks) {
    o.reorder({o.axis(0), *chunks, o.axis(1), tile_rows, tile_cols, y, x, o.axis(4)});
    chunks = o.fuse(o.axis(0), *chunks);
    o.parallel(*chunks);
  } else {
    o.reorder({o.axis(0), o.axis(1), tile_rows, tile_cols, y, x, o.axis(4)});
    o.parallel(o.fuse(o.axis(0), o.axis(1)));
  }
  o.unroll(y);
  o.unroll(x);
  o.vectorize(o.axis(4));
  return chunks;
}

}  // namespace

Schedule schedule_conv2d_winograd(const Tensor& output, const WinogradConfig& config) {
  if (config.rows < 1 || config.k_unroll < 1 || config.prefetch_bytes < 0)
    user_error("conv2d_winograd schedule: rows (", config.rows, ") and k_unroll (", config.k_unroll,
               ") must be positive and prefetch_bytes (", config.prefetch_bytes, ") 0 or more");
  Tensor anchor = find_by_tag(output, "conv2d_winograd");
  auto [v, product, tile_rows] = stages_of(output);
  int64_t channels = v.shape()[3];
  if (config.channel_slice < 0 || (config.channel_slice > 0 && !slice_fits(config.channel_slice, channels, config.k_unroll)))
    user_error("conv2d_winograd schedule: a channel slice of ", config.channel_slice, " for ", channels,
               " channels and k_unroll ", config.k_unroll, "; use 0 (none) or a multiple of k_unroll dividing the channels");
  std::vector<int64_t> sizes = chunk_choices(tile_rows);
  if (config.chunk_tile_rows != 0 && std::find(sizes.begin(), sizes.end(), config.chunk_tile_rows) == sizes.end())
    user_error("conv2d_winograd schedule: chunks of ", config.chunk_tile_rows, " tile rows; use 0 (none) or a divisor of ",
               "the output's tile rows below their number");
  Schedule s = create_schedule({output});
  if (!anchor.same_as(output)) s[anchor].compute_inline();
  std::optional<IterVar> chunks = schedule_output(s, output, product.shape()[0] - 2, config.chunk_tile_rows);
  schedule_product(s, product, config, !chunks);
  schedule_input(s, v, input_tensors(find_by_tag(output, "pad"))[0].shape()[4], !chunks);
  if (chunks) {
    s[product].compute_at(s[output], *chunks);
    s[v].compute_at(s[output], *chunks);
  }
  schedule_pad(s, v, PadPlacement::Root);
  return s;
}

namespace {

std::unique_ptr<OpSchedule> make_winograd_schedule(const PluginParams& p) {
  int64_t rows = p.get_int("rows");
  return std::make_unique<FunctionSchedule>([rows](const Tensor& out, const Target& target) {
    WinogradConfig config = winograd_fallback_config(out, target);
    if (rows > 0) config.rows = rows;
    return schedule_conv2d_winograd(out, config);
  });
}

const std::vector<ParamSpec> kWinogradParams = {
    {"rows", ParamType::Int, 0, "tiles per register tile of the GEMM stage (0: from the target's registers)",
     Allowed::at_least(0)}};

}  // namespace

TESSEL_REGISTER_OP_SCHEDULE(conv2d_winograd, cpu,
                            "Winograd 3x3 conv2d NCHWc on CPU: input transform, GEMM with the register tile of gemm, "
                            "output transform with the fused tail, each in parallel",
                            kWinogradParams, make_winograd_schedule);

}  // namespace tessel::ops
