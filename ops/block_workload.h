// A fused block (passes/graph/fuse_blocks.cpp) as a tuning workload: its chain of convolutions,
// each but the last followed by a bias and a clip to [0, 6] (MobileNet-V2's ReLU6), the last by a
// bias. Named "block:N,C,H,W,B/<stage>/<stage>..." where B is the channel block the input arrives
// in (0: NCHW) and each stage is "cK,S,P,OC" (a convolution) or "dK,S,P" (a depthwise one):
//
//   block:1,16,112,112,16/c1,1,0,96/d3,2,1/c1,1,0,24    (expansion, depthwise, projection)
//
// A block split by channels (ops/conv2d_shares.h) ends in "/sT", its T shares:
//
//   block:1,160,7,7,32/c1,1,0,960/d3,1,1/c1,1,0,160/s2
//
// As for a convolution's workload, the element-wise tails of the model's block (a ReLU for the
// clip, a residual add) are not part of it: the schedule tiles the convolutions and inlines the
// rest. The blocks between the stages are not either: the target chooses them, as the layout pass
// does (choose_conv2d_blocks; a depthwise convolution keeps its producer's), and block_instance
// builds the chain in them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/tensor.h"
#include "target/target.h"

namespace tessel::ops {

struct BlockStage {
  bool depthwise = false;
  int64_t kernel = 1, stride = 1, pad = 0;
  int64_t out_channels = 0;  // a convolution's; a depthwise one keeps its input's
};

struct BlockShape {
  int64_t n = 1, c = 0, h = 0, w = 0;
  int64_t in_block = 0;  // the input's channel block; 0: NCHW
  std::vector<BlockStage> stages;
  // The last stage's (a 1x1 convolution's) input channels summed in this many shares, one per
  // thread, each computing its share of the chain (ops/conv2d_shares.h); 1: split by rows.
  int64_t shares = 1;

  // Whether stage `i` is summed in shares (the last, when shares > 1).
  bool in_shares(size_t i) const { return shares > 1 && i + 1 == stages.size(); }

  // The input's channels, height and width of stage `i` (i == stages.size(): the block's output).
  int64_t channels_at(size_t i) const;
  int64_t height_at(size_t i) const;
  int64_t width_at(size_t i) const;
  double flops() const;
  int64_t reduction_size() const;  // the largest stage's: what sets the accepted rounding error
};

// Parses the text after "block:"; throws UserError naming the bad part and the valid form.
BlockShape parse_block_shape(const std::string& text);
// The text parse_block_shape reads back.
std::string block_shape_text(const BlockShape& shape);
// "N=1 C=16 H=112 W=112 B=16: conv 1x1 S1 P0 ->96, depthwise 3x3 S2 P1, conv 1x1 S1 P0 ->24"
// (then ", in 2 channel shares" for a block split by channels).
std::string describe(const BlockShape& shape);

// The canonical expression (inputs, then output): the input in its block, turned to NCHW, then the
// chain in NCHW with OIHW weights and a 1-D bias per stage. What the workload key is computed from.
std::vector<Tensor> block_expression(const BlockShape& shape);

// The chain as the layout pass blocks it for `target`: what a tuning task measures and what a
// model's block is checked against.
struct BlockInstance {
  std::vector<Tensor> inputs;       // data, then each stage's kernel and bias
  Tensor output;                    // the last stage's biased output
  std::vector<Tensor> tile_stages;  // each other stage's clipped output, producers first
  std::vector<Tensor> node_outputs;  // what a model's block has as its nodes' outputs, producers first
  std::vector<Tensor> args() const;
};
BlockInstance block_instance(const BlockShape& shape, const Target& target);

}  // namespace tessel::ops
