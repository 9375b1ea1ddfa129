// The reference workloads of the TVM paper (docs/workloads.md) as data: ResNet-18 conv2d
// layers C1–C12, MobileNet depthwise layers D1–D9 and square GEMMs, plus the parsers for shapes
// given on the command line. Every shape is batch-first NCHW float32. Bad names and shapes throw
// UserError with one line saying what is wrong and what is valid.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tessel {

// C[m,n] = A[m,k] · B[k,n]
struct GemmShape {
  int64_t m, n, k;
  double flops() const { return 2.0 * m * n * k; }
};

// Input N×C×H×W, weights OC×(C/groups)×KH×KW, output N×OC×out_h()×out_w().
struct Conv2dShape {
  int64_t n, c, h, w, oc, kh, kw, stride, pad, dilation = 1, groups = 1;
  int64_t out_h() const { return (h + 2 * pad - dilation * (kh - 1) - 1) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - dilation * (kw - 1) - 1) / stride + 1; }
  int64_t reduction_size() const { return (c / groups) * kh * kw; }
  int64_t output_elements() const { return n * oc * out_h() * out_w(); }
  double flops() const { return 2.0 * n * oc * out_h() * out_w() * reduction_size(); }
};

// One K×K filter per channel (channel multiplier 1): input N×C×H×W, weights C×1×K×K.
struct DepthwiseShape {
  int64_t n, c, h, w, k, stride, pad;
  // The channel block of the NCHW[b]c layout the operator runs in, part of what a tuning record is
  // for: 0, the operator's own (ops::choose_depthwise_block); else b, as a graph's depthwise
  // convolution takes its producer's block. Must divide C.
  int64_t block = 0;
  int64_t out_h() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - k) / stride + 1; }
  int64_t reduction_size() const { return k * k; }
  int64_t output_elements() const { return n * c * out_h() * out_w(); }
  double flops() const { return 2.0 * n * c * out_h() * out_w() * k * k; }
  // The same computation as a grouped convolution with groups = channels.
  Conv2dShape as_conv2d() const { return {n, c, h, w, c, k, k, stride, pad, 1, c}; }
};

template <typename Shape>
struct Workload {
  std::string name;
  Shape shape;
};

const std::vector<Workload<Conv2dShape>>& resnet18_conv2d_workloads();     // C1..C12
const std::vector<Workload<DepthwiseShape>>& mobilenet_depthwise_workloads();  // D1..D9

// One workload by name ("C6"), or every one of them for "all".
std::vector<Workload<Conv2dShape>> find_conv2d_workloads(const std::string& name);
std::vector<Workload<DepthwiseShape>> find_depthwise_workloads(const std::string& name);

// The square GEMM n×n×n.
GemmShape square_gemm(int64_t n);

// Command-line shapes: "M,N,K"; "N,C,H,W,OC,K,S,P" (square K×K kernel, stride S, pad P);
// "N,C,H,W,K,S,P" or "N,C,H,W,K,S,P,B" (channel block B) for depthwise.
GemmShape parse_gemm_shape(const std::string& text);
Conv2dShape parse_conv2d_shape(const std::string& text);
DepthwiseShape parse_depthwise_shape(const std::string& text);

// The integers of "a,b,c", exactly one per name in `names` (spaces around them allowed), for any
// operator's shape; `kind` names the shape in messages ("bad conv2d shape ...: OC is ...").
std::vector<int64_t> parse_shape_fields(const std::string& kind, const std::string& text,
                                        const std::vector<std::string>& names);

// Throws UserError unless every size is positive, padding non-negative, and the output non-empty.
void validate(const GemmShape& shape);
void validate(const Conv2dShape& shape);
void validate(const DepthwiseShape& shape);

// "N=1 C=64 H=56 W=56 OC=64 K=3 S=1 P=1"-style one-line descriptions for tables and logs.
std::string describe(const GemmShape& shape);
std::string describe(const Conv2dShape& shape);
std::string describe(const DepthwiseShape& shape);

}  // namespace tessel
