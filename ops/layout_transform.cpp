// Blocked-layout transforms (ops/layout_transform.h).
#include "ops/layout_transform.h"

#include "support/error.h"

namespace tessel::ops {

namespace {

void check_rank(const Tensor& t, int rank, const char* op, const char* layout) {
  if (t.ndim() != rank)
    user_error(op, ": '", t.name(), "' has ", t.ndim(), " dimensions; it must be ", rank, "-D (", layout, ")");
}

void check_block(int64_t extent, int64_t block, const char* op, const char* what) {
  if (block <= 0 || extent % block != 0)
    user_error(op, ": block ", block, " does not divide the ", what, " extent ", extent,
               "; choose a block size that divides it");
}

}  // namespace

Tensor nchw_to_nchwc(const Tensor& data, int64_t block, const std::string& name) {
  check_rank(data, 4, "nchw_to_nchwc", "NCHW");
  const auto& s = data.shape();
  check_block(s[1], block, "nchw_to_nchwc", "channel");
  return compute({s[0], s[1] / block, s[2], s[3], block}, [&](Var n, Var c, Var h, Var w, Var b) {
    return data(n, c * Expr(block) + b, h, w);
  }, name, "layout_transform");
}

Tensor nchwc_to_nchw(const Tensor& data, const std::string& name) {
  check_rank(data, 5, "nchwc_to_nchw", "NCHWc");
  const auto& s = data.shape();
  int64_t block = s[4];
  return compute({s[0], s[1] * block, s[2], s[3]}, [&](Var n, Var c, Var h, Var w) {
    return data(n, c / Expr(block), h, w, c % Expr(block));
  }, name, "layout_transform");
}

Tensor nchwc_to_nchwc(const Tensor& data, int64_t block, const std::string& name) {
  check_rank(data, 5, "nchwc_to_nchwc", "NCHWc");
  const auto& s = data.shape();
  int64_t from = s[4], channels = s[1] * from;
  check_block(channels, block, "nchwc_to_nchwc", "channel");
  return compute({s[0], channels / block, s[2], s[3], block}, [&](Var n, Var c, Var h, Var w, Var b) {
    Expr channel = c * Expr(block) + b;
    return data(n, channel / Expr(from), h, w, channel % Expr(from));
  }, name, "layout_transform");
}

Tensor oihw_to_oihwio(const Tensor& kernel, int64_t i_block, int64_t o_block, const std::string& name) {
  check_rank(kernel, 4, "oihw_to_oihwio", "OIHW");
  const auto& s = kernel.shape();
  check_block(s[0], o_block, "oihw_to_oihwio", "output-channel");
  check_block(s[1], i_block, "oihw_to_oihwio", "input-channel");
  return compute({s[0] / o_block, s[1] / i_block, s[2], s[3], i_block, o_block},
                 [&](const std::vector<Var>& v) {
                   return kernel(v[0] * Expr(o_block) + v[5], v[1] * Expr(i_block) + v[4], v[2], v[3]);
                 },
                 name, "layout_transform");
}

}  // namespace tessel::ops
