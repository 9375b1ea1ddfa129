// Graph pass "matmul_as_dense": a matmul A[..., M, K] · B[K, N] with a constant 2-D B becomes one
// dense layer over A's rows, dense(reshape(A, [rows, K]), Bᵀ), reshaped back to [..., M, N].
// ONNX writes a language model's decoder (and any Linear layer applied to a sequence) as such a
// MatMul; as a batched product of M = 1 rows it reads B once per row, while the dense layer reads it
// once for all rows and gets the layout pass's packed weights and the GEMM schedule.
#include "passes/graph/graph_pass.h"
#include "runtime/ndarray_permute.h"
#include "support/registry.h"

namespace tessel::graph {

namespace {

// The dense layer computing `node` (a matmul with constant 2-D float32 B), or nothing.
std::optional<ValueId> as_dense(Graph& g, const Node& node) {
  const NDArray* b = g.constant_value(node.inputs[1]);
  TensorType a = g.value(node.inputs[0]).type;  // copies: adding nodes moves the graph's values
  if (!b || b->ndim() != 2 || b->dtype() != ElementType::of<float>() || a.dtype != DataType::float32() ||
      a.ndim() < 2)
    return std::nullopt;
  TensorType out = g.value(node.outputs[0]).type;
  int64_t k = b->shape()[0], rows = a.numel() / k;
  NDArray weight = permuted_copy(*b, {k, b->shape()[1]}, {1, 0});  // dense's W[N, K]: B transposed
  ValueId x = node.inputs[0];
  if (a.ndim() != 2) x = g.add_op("reshape", {x}, {{"shape", Ints{rows, k}}});
  ValueId w = g.add_constant(g.unique_value_name(g.value(node.inputs[1]).name + ".transposed"), weight);
  ValueId y = g.add_op("dense", {x, w});
  if (out.ndim() != 2) y = g.add_op("reshape", {y}, {{"shape", Ints(out.shape)}, {"layout", out.layout}});
  return y;
}

class MatmulAsDense : public GraphPass {
 public:
  std::string run(OptimizedGraph& opt) const override {
    Graph& g = opt.graph;
    int rewritten = 0;
    for (NodeId n : g.topological_order()) {
      if (g.node(n).op != "matmul") continue;
      Node node = g.node(n);  // a copy: adding nodes moves the graph's node storage
      std::optional<ValueId> y = as_dense(g, node);
      if (!y) continue;
      replace_value(g, node.outputs[0], *y);
      g.remove_node(n);
      ++rewritten;
    }
    if (rewritten) opt.graph_changed();
    return "made " + std::to_string(rewritten) + " matmuls with a constant matrix dense layers";
  }
};

}  // namespace

TESSEL_REGISTER_PLUGIN(GraphPass, matmul_as_dense,
                       "a matmul by a constant matrix as one dense layer over all rows (packed weights, GEMM schedule)",
                       {}, [](const PluginParams&) { return std::make_unique<MatmulAsDense>(); });

}  // namespace tessel::graph
