// Register-tiled windowed-reduction schedule (ops/window_schedule.h).
#include "ops/window_schedule.h"

#include <string>
#include <tuple>

#include "ops/cpu_tiles.h"
#include "ops/tiling.h"
#include "support/error.h"

namespace tessel::ops {

namespace {

// The "pad" stage `consumer` reads, if any.
Tensor pad_stage_of(const Schedule& s, const Tensor& consumer) {
  for (const Tensor& in : input_tensors(s.current(consumer)))
    if (in->tag == "pad") return in;
  return Tensor();
}

// The pad loops vectorized over the channel block of blocked layouts.
Stage vectorized_pad(Schedule& s, const Tensor& pad) {
  Stage p = s[pad];
  if (pad.ndim() == 5) p.vectorize(p.axis(4));
  return p;
}

// The output's loops of one register tile, as the accumulator is attached to them.
struct OutputTiles {
  IterVar parallel;       // the loop the threads share (undefined for a stage computed in another's loop)
  IterVar column_tiles;   // the loop the accumulator is computed at
  IterVar row_tiles;      // the loop over the register tiles' rows
};

// How the output's outer loops run. Threads: channels × row tiles fused, in parallel, split into
// one share per thread (config.threads) when a pad is computed per thread. BlockTiles: the rows
// split into tiles of `tile_rows`, the outermost loop and the parallel one, for the producers of
// a fused block to be computed at. ChannelShares: the channel blocks split into `parts` equal
// shares, the outermost loop and the parallel one. Serial: a stage computed in another stage's loop.
struct OuterLoops {
  enum Kind { Threads, ThreadShares, BlockTiles, ChannelShares, Serial } kind = Threads;
  int64_t tile_rows = 0;
  int64_t parts = 0;
};

OutputTiles schedule_output(Stage c, bool blocked, const WindowConfig& config, OuterLoops outer) {
  auto [column_tiles, columns] = c.split(c.axis(3), config.columns);
  IterVar channels = c.axis(1), row_tiles = c.axis(2), channels_inner, block_tiles, shares;
  if (outer.kind == OuterLoops::BlockTiles) std::tie(block_tiles, row_tiles) = c.split(row_tiles, outer.tile_rows);
  bool row_shares = outer.kind == OuterLoops::Threads && config.row_shares && config.threads > 1;
  if (row_shares) std::tie(shares, row_tiles) = c.split_nparts(row_tiles, config.threads);
  if (config.channel_blocks > 1) {
    std::tie(channels, channels_inner) = c.split(channels, config.channel_blocks);
    c.reorder({channels, row_tiles, column_tiles, channels_inner});
    c.unroll(channels_inner);
  }
  IterVar rows;
  if (config.rows > 1) {
    std::tie(row_tiles, rows) = c.split(row_tiles, config.rows);
    c.reorder({column_tiles, rows});
    c.unroll(rows);
  }
  if (config.rows_outer) c.reorder({row_tiles, channels});
  if (blocked) {
    c.unroll(columns);
    if (config.block_lanes > 0) {
      // the block's vectors outside the column tiles, the tile's loops kept in their order
      auto [vectors, lanes] = c.split(c.axis(4), config.block_lanes);
      std::vector<IterVar> order = {vectors, column_tiles};
      for (const IterVar& v : {channels_inner, rows, columns})
        if (v.defined()) order.push_back(v);
      c.reorder(order);
      c.vectorize(lanes);
    } else {
      c.vectorize(c.axis(4));
    }
  } else {
    c.vectorize(columns);
  }
  if (outer.kind == OuterLoops::Serial) return {IterVar(), column_tiles, row_tiles};
  if (outer.kind == OuterLoops::ChannelShares) {
    auto [shares, blocks] = c.split_nparts(channels, outer.parts);
    c.reorder(config.rows_outer ? std::vector<IterVar>{shares, row_tiles, blocks}
                                : std::vector<IterVar>{shares, blocks, row_tiles});
    c.parallel(shares);
    return {shares, column_tiles, row_tiles};
  }
  if (outer.kind == OuterLoops::BlockTiles) {
    c.reorder({block_tiles, row_tiles, channels});
    c.parallel(block_tiles);
    return {block_tiles, column_tiles, row_tiles};
  }
  if (row_shares) {
    c.reorder({shares, channels, row_tiles});
    c.parallel(shares);
    return {shares, column_tiles, row_tiles};
  }
  // channels × row tiles: enough parallel work at any depth
  IterVar parallel = config.rows_outer ? c.fuse(row_tiles, channels) : c.fuse(channels, row_tiles);
  if (outer.kind == OuterLoops::ThreadShares) parallel = c.split_nparts(parallel, config.threads).first;
  c.parallel(parallel);
  return {parallel, column_tiles, row_tiles};
}

void schedule_accumulator(Stage cc, const Stage& c, const IterVar& at, bool blocked, const WindowConfig& config) {
  cc.compute_at(c, at);
  std::vector<IterVar> order;
  for (int r : config.reduce_order) order.push_back(cc.reduce_axis(r));
  if (config.channel_blocks > 1) {
    IterVar channels = cc.split(cc.axis(1), config.channel_blocks).second;
    cc.unroll(channels);
    order.push_back(channels);
  }
  if (config.rows > 1) {
    IterVar rows = cc.split(cc.axis(2), config.rows).second;
    cc.unroll(rows);
    order.push_back(rows);
  }
  IterVar columns = cc.split(cc.axis(3), config.columns).second;
  order.push_back(columns);
  if (blocked) order.push_back(cc.axis(4));
  cc.reorder(order);  // the reduction outside the register tile, the tile innermost
  for (int r : config.unrolled) cc.unroll(cc.reduce_axis(r));
  if (blocked) {
    cc.unroll(columns);
    cc.vectorize(cc.axis(4));
  } else {
    cc.vectorize(columns);
  }
}

// The output's loops with reduction chunks (WindowConfig::reduce_chunk): the channel blocks (of
// channel_blocks blocks each), with rows_outer on several threads behind a share of the rows per
// thread, in parallel, and inside them the register tiles the accumulator, computed at the
// parallel loop, has run every chunk over.
OutputTiles schedule_output_chunked(Stage c, const WindowConfig& config) {
  auto [column_tiles, columns] = c.split(c.axis(3), config.columns);
  IterVar row_axis = c.axis(2), shares;
  bool row_shares = config.rows_outer && config.threads > 1;
  if (row_shares) std::tie(shares, row_axis) = c.split_nparts(row_axis, config.threads);
  auto [row_tiles, rows] = c.split(row_axis, config.rows);
  auto [channels, channels_inner] = c.split(c.axis(1), config.channel_blocks);
  std::vector<IterVar> order = {channels, row_tiles, column_tiles, channels_inner, rows, columns};
  if (row_shares) order.insert(order.begin(), shares);
  c.reorder(order);
  for (const IterVar& v : {channels_inner, rows, columns}) c.unroll(v);
  c.vectorize(c.axis(4));
  IterVar parallel = row_shares ? c.fuse(shares, channels) : channels;
  c.parallel(parallel);
  return {parallel, column_tiles, row_tiles};
}

// The accumulator over one parallel iteration's channel blocks, its reduction chunks outermost,
// then the register tiles, the rest of the reduction, and the tile innermost.
void schedule_accumulator_chunked(Stage cc, const Stage& c, const IterVar& at, const WindowConfig& config) {
  cc.compute_at(c, at);
  auto [chunks, chunk] = cc.split(cc.reduce_axis(0), config.reduce_chunk);
  auto [row_tiles, rows] = cc.split(cc.axis(2), config.rows);
  auto [column_tiles, columns] = cc.split(cc.axis(3), config.columns);
  IterVar channels_inner = cc.split(cc.axis(1), config.channel_blocks).second;
  std::vector<IterVar> order = {chunks, row_tiles, column_tiles};
  for (int r : config.reduce_order) order.push_back(r == 0 ? chunk : cc.reduce_axis(r));
  for (const IterVar& v : {channels_inner, rows, columns, cc.axis(4)}) order.push_back(v);
  cc.reorder(order);
  for (int r : config.unrolled) cc.unroll(r == 0 ? chunk : cc.reduce_axis(r));
  for (const IterVar& v : {channels_inner, rows, columns}) cc.unroll(v);
  cc.vectorize(cc.axis(4));
}

void check_window_config(const Tensor& out, const WindowConfig& config) {
  TESSEL_CHECK(out.ndim() == 4 || out.ndim() == 5, "window output '", out.name(), "' must be 4-D or 5-D");
  if (config.rows < 1 || config.columns < 1)
    user_error("window schedule of '", out.name(), "': the register tile ", config.rows, "x", config.columns,
               " must have positive rows and columns");
  int64_t blocks = out.ndim() == 5 ? out.shape()[1] : 1;
  if (config.channel_blocks < 1 || blocks % config.channel_blocks != 0)
    user_error("window schedule of '", out.name(), "': ", config.channel_blocks, " channel blocks per register tile",
               " must divide the output's ", blocks, " channel blocks (1 for an unblocked layout); use a divisor");
  if (config.reduce_chunk < 0 || (config.reduce_chunk > 0 && out.ndim() != 5))
    user_error("window schedule of '", out.name(), "': reduction chunks of ", config.reduce_chunk,
               " blocks need a blocked (NCHWc) output and a positive size; use 0 for none");
  if (config.threads < 1)
    user_error("window schedule of '", out.name(), "': ", config.threads, " threads to pad for; use at least 1");
  if (config.block_lanes < 0 || (config.block_lanes > 0 && out.ndim() == 5 && config.block_lanes < out.shape()[4] &&
                                 (out.shape()[4] % config.block_lanes != 0 || config.reduce_chunk > 0)))
    user_error("window schedule of '", out.name(), "': ", config.block_lanes, " lanes per register tile must divide",
               " the channel block", out.ndim() == 5 ? " of " + std::to_string(out.shape()[4]) : std::string(),
               " and cannot be combined with reduction chunks; use 0 for the whole block");
}

// `config` with block_lanes 0 where a tile covers the whole channel block anyway (the same program).
WindowConfig normalized(const Tensor& out, WindowConfig config) {
  if (out.ndim() != 5 || config.block_lanes >= out.shape()[4]) config.block_lanes = 0;
  return config;
}

// schedule_window with the outer loops `outer` says (a pad per row or thread needs Threads or
// ThreadShares).
OutputTiles schedule_window_with(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& given,
                             OuterLoops outer) {
  check_window_config(out, given);
  WindowConfig config = normalized(out, given);
  bool blocked = out.ndim() == 5;
  Stage c = s[out];
  Tensor pad = pad_stage_of(s, acc);
  PadPlacement where = config.pad;
  bool per_tile = where == PadPlacement::PerThread || where == PadPlacement::PerRow;
  if (per_tile && outer.kind != OuterLoops::Threads) {  // no thread loop of its own to pad at
    where = PadPlacement::Inline;
    per_tile = false;
  }
  if (config.reduce_chunk > 0 && outer.kind == OuterLoops::Threads) {
    OutputTiles tiles = schedule_output_chunked(c, config);
    schedule_pad(s, acc, where == PadPlacement::Inline ? PadPlacement::Inline : PadPlacement::Root);
    schedule_accumulator_chunked(s[acc], c, tiles.parallel, config);
    return tiles;
  }
  if (pad.defined() && where == PadPlacement::PerThread) outer.kind = OuterLoops::ThreadShares;
  OutputTiles tiles = schedule_output(c, blocked, config, outer);
  if (pad.defined() && per_tile)
    vectorized_pad(s, pad).compute_at(c, tiles.parallel);
  else if (pad.defined())
    schedule_pad(s, acc, where);
  schedule_accumulator(s[acc], c, tiles.column_tiles, blocked, config);
  return tiles;
}

}  // namespace

void schedule_window(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config) {
  schedule_window_with(s, out, acc, config, {});
}

BlockLoops schedule_window_tiled(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config,
                                 int64_t tile_rows) {
  if (tile_rows < 1) user_error("window schedule of '", out.name(), "': ", tile_rows, " rows per tile; use at least 1");
  OutputTiles tiles = schedule_window_with(s, out, acc, config, {OuterLoops::BlockTiles, tile_rows});
  return {tiles.parallel, tiles.row_tiles};
}

IterVar schedule_window_shares(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config,
                               int64_t shares) {
  if (shares < 1 || out.ndim() != 5 || out.shape()[1] % (shares * config.channel_blocks) != 0)
    user_error("window schedule of '", out.name(), "': ", shares, " shares of ", config.channel_blocks,
               "-block register tiles do not divide its channel blocks; use a divisor");
  return schedule_window_with(s, out, acc, config, {OuterLoops::ChannelShares, 0, shares}).parallel;
}

void schedule_window_at(Schedule& s, const Tensor& out, const Tensor& acc, const WindowConfig& config,
                        const Stage& parent, const IterVar& at) {
  s[out].compute_at(parent, at);
  schedule_window_with(s, out, acc, config, {OuterLoops::Serial});
}

void schedule_pad(Schedule& s, const Tensor& consumer, PadPlacement where) {
  TESSEL_CHECK(where != PadPlacement::PerRow && where != PadPlacement::PerThread,
               "schedule_pad cannot place a pad per row or thread; use schedule_window");
  Tensor pad = pad_stage_of(s, consumer);
  if (!pad.defined()) return;
  if (where == PadPlacement::Inline) return s[pad].compute_inline();
  Stage p = vectorized_pad(s, pad);
  p.parallel(p.axis(1));
}

int64_t pick_reg_n(int64_t ow, int64_t limit) { return largest_divisor_at_most(ow, limit); }

}  // namespace tessel::ops
