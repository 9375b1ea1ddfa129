// Software prefetch of the region a later loop iteration reads, or of a whole tensor spread over a
// loop nest (see prefetch.h).
#include "passes/lower/prefetch.h"

#include "ir/mutator.h"
#include "ir/visitor.h"
#include "passes/arith/interval.h"
#include "passes/arith/simplify.h"
#include "support/error.h"

namespace tessel {

namespace {

constexpr int64_t kCacheLineBytes = 64;
// A region of at most this many lines is prefetched by straight-line code; a larger one loops over
// its runs (each run's lines stay unrolled).
constexpr int64_t kMaxUnrolledPrefetches = 64;

// The reads of one tensor in a loop body, and the ranges of the loops around them in that body.
class ReadCollector : public IRVisitor {
 public:
  explicit ReadCollector(const OperationNode* op) : op_(op) {}
  std::vector<const TensorRead*> reads;
  arith::VarIntervals inner_loops;

 protected:
  void visit_node(const TensorRead* op) override {
    if (op->op.get() == op_) reads.push_back(op);
    IRVisitor::visit_node(op);
  }
  void visit_node(const For* op) override {
    inner_loops[op->var.as<VarNode>()] = {op->min, simplify(op->min + op->extent - 1)};
    IRVisitor::visit_node(op);
  }

 private:
  const OperationNode* op_;
};

// Elements of `tensor` per cache line (at least 1).
int64_t line_elements(const Tensor& tensor) { return std::max<int64_t>(1, kCacheLineBytes / tensor.dtype().bytes()); }

// Per dimension, the first index and the constant extent the reads cover.
struct Region {
  std::vector<Expr> mins;
  std::vector<int64_t> extents;
};

Region read_region(const Tensor& tensor, const ReadCollector& found, const Var& loop_var) {
  Region region;
  for (int d = 0; d < tensor.ndim(); ++d) {
    Expr lo, hi;
    for (const TensorRead* read : found.reads) {
      arith::Interval i = arith::eval_interval(read->indices[d], found.inner_loops);
      if (!i.bounded())
        user_error("prefetch of '", tensor.name(), "' at loop '", loop_var.name(), "': index ", d,
                   " of a read has no bounds inside the loop");
      lo = lo.defined() ? min(lo, i.min) : i.min;
      hi = hi.defined() ? max(hi, i.max) : i.max;
    }
    const int64_t* extent = as_const_int(simplify(hi - lo + 1));
    if (!extent)
      user_error("prefetch of '", tensor.name(), "' at loop '", loop_var.name(), "': the extent of dimension ", d,
                 " it reads in one iteration is not constant");
    region.mins.push_back(simplify(lo));
    region.extents.push_back(*extent);
  }
  return region;
}

// The dimensions from `dim` inwards are one contiguous run of `elements`: the ones inside dim are
// read whole.
struct Run {
  int dim;
  int64_t elements;
};

Run contiguous_run(const Region& region, const Tensor& tensor) {
  Run run{tensor.ndim() - 1, region.extents.back()};
  while (run.dim > 0 && region.extents[run.dim] == tensor.shape()[run.dim]) {
    --run.dim;
    run.elements *= region.extents[run.dim];
  }
  return run;
}

// A prefetch per line of each run of the region at loop_var + offset: loops over the dimensions
// outside the run (those the region spans), and inside them over the run's lines.
Stmt prefetch_lines(const Tensor& tensor, const Region& region, const Run& run, const Var& loop_var, int offset) {
  std::unordered_map<const VarNode*, Expr> ahead = {{loop_var.as<VarNode>(), loop_var + offset}};
  std::vector<std::pair<Var, int64_t>> outer;  // the loops over the dimensions outside the run
  std::vector<Expr> indices;
  for (int d = 0; d < tensor.ndim(); ++d) {
    indices.push_back(substitute(region.mins[d], ahead));
    if (d >= run.dim || region.extents[d] == 1) continue;
    outer.emplace_back(Var(tensor.name() + ".prefetch" + std::to_string(d)), region.extents[d]);
    indices.back() = indices.back() + outer.back().first;
  }
  // The last dimension steps by lines; the flat index of a step past its extent is the run's next
  // element, which is what storage flattening computes from these indices.
  int64_t line = line_elements(tensor);
  int64_t lines = (run.elements + line - 1) / line, prefetches = lines;
  Var step(tensor.name() + ".prefetch_line");
  indices.back() = simplify(indices.back() + step * make_int(line));
  Stmt nest = make_for(step, 0, make_int(lines), ForKind::Unrolled, make_evaluate(call("prefetch", {tensor(indices)})));
  for (const auto& [var, extent] : outer) prefetches *= extent;
  ForKind kind = prefetches <= kMaxUnrolledPrefetches ? ForKind::Unrolled : ForKind::Serial;
  for (auto loop = outer.rbegin(); loop != outer.rend(); ++loop)
    nest = make_for(loop->first, 0, make_int(loop->second), kind, nest);
  return nest;
}

// A loop of prefetches over `count` lines of `tensor` from line `first` on, in its flat memory
// order (the last index steps past its extent as flattening allows).
Stmt prefetch_run(const Tensor& tensor, const Expr& first, int64_t count, const std::string& intrinsic) {
  int64_t line = line_elements(tensor);
  Var step(tensor.name() + ".prefetch_line");
  std::vector<Expr> indices(tensor.ndim(), make_int(0));
  indices.back() = simplify((first + step) * make_int(line));
  ForKind kind = count <= kMaxUnrolledPrefetches ? ForKind::Unrolled : ForKind::Serial;
  return make_for(step, 0, make_int(count), kind, make_evaluate(call(intrinsic, {tensor(indices)})));
}

}  // namespace

int64_t cache_lines(const Tensor& tensor) {
  int64_t bytes = tensor.dtype().bytes();
  for (int64_t extent : tensor.shape()) bytes *= extent;
  return (bytes + kCacheLineBytes - 1) / kCacheLineBytes;
}

Stmt prefetch_share(const Tensor& tensor, const Expr& iteration, int64_t iterations, int64_t lead_bytes) {
  TESSEL_CHECK(iterations >= 1, "prefetch of '", tensor.name(), "' over ", iterations, " iterations");
  int64_t lines = cache_lines(tensor);
  int64_t share = (lines + iterations - 1) / iterations;
  // Shares that would reach past the last line end at it instead (overlapping the one before):
  // one clamp per share, no branch around the loop body the prefetches sit in, and none per line
  // (LLVM vectorized those, taking a vector register from the kernel's accumulators on AVX2).
  Expr first = min(iteration * make_int(share) + make_int(lead_bytes / kCacheLineBytes), make_int(lines - share));
  return prefetch_run(tensor, first, share, "prefetch_l2");
}

Stmt prefetch_ahead(const Tensor& tensor, const Var& loop_var, int offset, const Stmt& body) {
  ReadCollector found(tensor.get());
  found.visit(body);
  if (found.reads.empty())
    user_error("prefetch of '", tensor.name(), "' at loop '", loop_var.name(),
               "': the loop's body does not read it; prefetch a tensor the stage reads inside that loop");
  Region region = read_region(tensor, found, loop_var);
  return prefetch_lines(tensor, region, contiguous_run(region, tensor), loop_var, offset);
}

}  // namespace tessel
