// Graph pass "fuse_blocks": after "fuse", merges the groups of a depthwise convolution, the 1x1
// convolution that reads it and the convolution that feeds it (MobileNet-V2's inverted residual:
// expansion, depthwise, projection) into one fused block, when the tensors chained between them
// outgrow the L2. A group fuses at most one anchor because each schedule tiles one reduction; the
// block's schedule (ops/block_schedule.h) computes its producers per row tile of its output, so
// the expanded tensors stay in L2-sized tiles instead of travelling to memory and back. With one
// thread these layers run at what the L3 delivers, for Tessel's kernels as much as for oneDNN's,
// and unfused they are where MobileNet-V2 spends a third of its time.
//
// On several threads smaller chains pay too: unfused, the expanded tensor is handed between
// kernels that split it among the cores differently (the expansion by channel blocks where its
// kernel outweighs its input, the depthwise by rows), so much of it crosses between the cores, and
// a depthwise thread writing half the rows of every channel block pays at each seam (most likely
// for the other core's hardware prefetches). In a block each thread keeps its rows. Hence
// `threaded_scale`. Where a thread's share of a block's output would be only a few rows
// (`share_rows`; MobileNet-V2's 7x7 blocks on two threads), the block splits its channels among
// the threads instead (ops/conv2d_shares.h), whatever its bytes: each thread then computes its
// share of the chain on its own core, and only the projection's partial sums cross between them.
//
// Switched off by name like any pass (--passes -fuse_blocks), it gives the ablation.
#include <algorithm>
#include <unordered_map>

#include "ops/graph/graph_op_util.h"
#include "passes/graph/graph_pass.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

constexpr int kNone = -1;

class BlockFusion {
 public:
  BlockFusion(const Graph& g, std::vector<FusedGroup>& groups, double l2_fraction, int64_t l2_bytes, int threads,
              int64_t share_rows)
      : g_(g), groups_(groups), budget_(l2_fraction * static_cast<double>(l2_bytes)), threads_(threads),
        share_rows_(share_rows) {
    for (size_t i = 0; i < groups_.size(); ++i)
      for (NodeId n : groups_[i].nodes) group_of_[n] = static_cast<int>(i);
  }

  // Merges every block found; returns how many.
  int run() {
    std::vector<bool> merged(groups_.size(), false);
    int blocks = 0;
    for (int d = 0; d < static_cast<int>(groups_.size()); ++d) {
      std::vector<int> parts = block_around(d, merged);
      if (parts.empty()) continue;
      bool by_channels = channel_shares_pay(parts);
      if (!by_channels && chained_bytes(parts) <= budget_) continue;
      if (by_channels) split_by_channels.push_back(groups_[parts.back()].anchor);
      merge(parts);
      for (int part : parts) merged[part] = true;
      ++blocks;
    }
    std::vector<FusedGroup> kept;  // the blocks took the places of their projections
    for (size_t i = 0; i < groups_.size(); ++i)
      if (!merged[i] || !groups_[i].tile_values.empty()) kept.push_back(std::move(groups_[i]));
    groups_ = std::move(kept);
    return blocks;
  }

  std::vector<NodeId> split_by_channels;  // the projections of the blocks split by channels

 private:
  // The groups of the block around depthwise group `d`, producers first ({expansion,} depthwise,
  // projection), or none; groups already in a block are not taken again.
  std::vector<int> block_around(int d, const std::vector<bool>& merged) const {
    if (merged[d] || anchor_op(d) != "depthwise_conv2d_nchwc") return {};
    int p = only_reader(d);
    if (p == kNone || merged[p] || !pointwise_conv(p)) return {};
    int e = producer_of_data(d);
    if (e == kNone || merged[e] || anchor_op(e) != "conv2d_nchwc" || over_pixels(e) || only_reader(e) != d)
      return {d, p};
    return {e, d, p};
  }

  std::string anchor_op(int group) const {
    NodeId a = groups_[group].anchor;
    return a < 0 ? "" : g_.node(a).op;
  }

  // Whether group `i`'s anchor is a convolution computed over its flattened pixels
  // (ops/conv2d_pixels.h): a block's stages are tiled by rows, which those are not.
  bool over_pixels(int i) const { return g_.node(groups_[i].anchor).attrs.get_int("pixel_tiles", 0) != 0; }

  // The one group reading group `i`'s one output (not a graph output), or kNone.
  int only_reader(int i) const {
    const FusedGroup& group = groups_[i];
    if (group.outputs.size() != 1 || g_.is_output(group.outputs[0])) return kNone;
    int reader = kNone;
    for (const Use& u : g_.users(group.outputs[0])) {
      int r = group_of_.at(u.node);
      if (reader != kNone && r != reader) return kNone;
      reader = r;
    }
    return reader;
  }

  // A group whose anchor is a 1x1, stride-1, unpadded, ungrouped conv2d_nchwc: its output rows read
  // only the same rows of its input, so the producers' tiles need no halo.
  bool pointwise_conv(int i) const {
    if (anchor_op(i) != "conv2d_nchwc") return false;
    if (over_pixels(i)) return false;
    const Node& conv = g_.node(groups_[i].anchor);
    const std::vector<int64_t>& kernel = g_.value(conv.inputs.at(1)).type.shape;
    return kernel.size() == 6 && conv.attrs.get_int("groups", 1) == 1 && ops::pointwise_window(conv.attrs, kernel);
  }

  // The group producing the data input of group `i`'s anchor, or kNone (a graph input).
  int producer_of_data(int i) const {
    NodeId producer = g_.value(g_.node(groups_[i].anchor).inputs.at(0)).producer;
    auto it = group_of_.find(producer);
    return it == group_of_.end() ? kNone : it->second;
  }

  // Whether the block of `parts` splits its channels among the threads instead of its rows: on
  // several threads, when a thread's share of its output would be share_rows rows or fewer, and
  // every chained tensor and the projection's input have channel blocks in whole shares.
  bool channel_shares_pay(const std::vector<int>& parts) const {
    if (threads_ < 2) return false;
    const Node& projection = g_.node(groups_[parts.back()].anchor);
    const std::vector<int64_t>& out = g_.value(projection.outputs.at(0)).type.shape;
    if (out.size() != 5 || (out[2] + threads_ - 1) / threads_ > share_rows_) return false;
    if (g_.value(projection.inputs.at(1)).type.shape[1] % threads_ != 0) return false;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      const std::vector<int64_t>& chained = g_.value(groups_[parts[i]].outputs[0]).type.shape;
      if (chained.size() != 5 || chained[1] % threads_ != 0) return false;
    }
    return true;
  }

  // Bytes of the tensors that stay inside the block: every part's output but the last's.
  double chained_bytes(const std::vector<int>& parts) const {
    double bytes = 0;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      const TensorType& t = g_.value(groups_[parts[i]].outputs[0]).type;
      bytes += static_cast<double>(t.numel() * t.dtype.bytes());
    }
    return bytes;
  }

  // The block replaces the last part's group. Every node of a part depends on the part before it
  // (its anchor reads that part's one output, its other nodes follow its anchor or feed it from
  // that output), so the parts' nodes, concatenated, stay producers first.
  void merge(const std::vector<int>& parts) {
    std::vector<NodeId> nodes;
    std::vector<ValueId> tiles;
    for (int part : parts) nodes.insert(nodes.end(), groups_[part].nodes.begin(), groups_[part].nodes.end());
    for (size_t i = 0; i + 1 < parts.size(); ++i) tiles.push_back(groups_[parts[i]].outputs[0]);
    FusedGroup block = make_group(g_, nodes);
    block.tile_values = tiles;
    groups_[parts.back()] = std::move(block);
  }

  const Graph& g_;
  std::vector<FusedGroup>& groups_;
  double budget_;
  int threads_;
  int64_t share_rows_;
  std::unordered_map<NodeId, int> group_of_;
};

class FuseBlocks : public GraphPass {
 public:
  FuseBlocks(double l2_fraction, double threaded_scale, int64_t share_rows)
      : l2_fraction_(l2_fraction), threaded_scale_(threaded_scale), share_rows_(share_rows) {}

  std::string run(OptimizedGraph& opt) const override {
    if (!opt.groups) return "no fused groups to merge (the fuse pass did not run)";
    const CpuDescription& cpu = opt.target.cpu();
    double fraction = cpu.threads > 1 ? l2_fraction_ * threaded_scale_ : l2_fraction_;
    BlockFusion fusion(opt.graph, *opt.groups, fraction, cpu.l2_bytes, cpu.threads, share_rows_);
    int blocks = fusion.run();
    for (NodeId projection : fusion.split_by_channels)
      opt.graph.set_attr(projection, "channel_shares", static_cast<int64_t>(cpu.threads));
    opt.memory.reset();
    return std::to_string(blocks) + " fused blocks (depthwise convolution with the convolutions around it), " +
           std::to_string(fusion.split_by_channels.size()) + " of them split by channels";
  }

 private:
  double l2_fraction_, threaded_scale_;
  int64_t share_rows_;
};

const std::vector<ParamSpec> kParams = {
    {"l2_fraction", ParamType::Float, 1.0,
     "merge a block when the tensors chained inside it exceed this fraction of one core's L2",
     Allowed::at_least(0)},
    // Measured on Zen 5 (AVX-512, 2 threads), MobileNet-V2 at 0.5 (the 14x14 and stride-2 blocks
    // too) ran 0.93 of the time at 1; under the AVX2 ceiling 1.00 (docs/graph.md, "Fused blocks").
    {"threaded_scale", ParamType::Float, 0.5,
     "on several threads (the target's -threads), l2_fraction times this: chains split across cores cost more",
     Allowed::at_least(0)},
    {"share_rows", ParamType::Int, 4,
     "on several threads, a block whose output gives a thread this many rows or fewer splits its channels among "
     "the threads instead (ops/conv2d_shares.h), merged whatever its chained bytes; 0: never",
     Allowed::at_least(0)}};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, fuse_blocks,
                       "fused blocks: expansion, depthwise and projection convolutions computed per row tile", kParams,
                       [](const PluginParams& p) {
                         return std::make_unique<FuseBlocks>(p.get_float("l2_fraction"), p.get_float("threaded_scale"),
                                                             p.get_int("share_rows"));
                       });

}  // namespace tessel::graph
