// libFuzzer target: the graph executor's reading of a module folder's graph.json
// (runtime/graph_executor.h), against the kernels and params of one small model compiled when the
// fuzzer starts (a convolution with bias and ReLU, a residual add and a pooling, for the AVX2
// ceiling so that its graph.json is the same on every x86-64 machine). Whatever the text, the
// executor is built or refuses it with a UserError; a graph it accepts runs, from zero inputs, and
// gives outputs of the shapes it declares, without a sanitizer report (every kernel argument lies
// in a storage or param at least as large as the kernel declares). Anything else is a bug.
// Graphs whose storages add up to more than 64 MB are skipped: allocating them is all such a size
// does (NDArray's "out of memory" UserError is tested on its own), and the fuzzer's memory limit
// would report it as a leak of resources rather than a bug.
// Seeds: seeds/module_graph/compiled.json, the graph.json of the model below; after a change to
// the compiler, write it again with
//   TESSEL_FUZZ_WRITE_SEED=fuzz/seeds/module_graph/compiled.json build-fuzz/module_graph_fuzzer -runs=0
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "compiler/compile_model.h"
#include "support/error.h"
#include "support/json_integers.h"

namespace {

using namespace tessel;

graph::Graph small_model() {
  graph::Graph g;
  graph::ValueId x = g.add_input("x", {{1, 8, 6, 6}, DataType::float32(), "NCHW"});
  auto constant = [&](const char* name, std::vector<int64_t> shape, uint64_t seed) {
    return g.add_constant(name, NDArray::random_uniform(std::move(shape), DataType::float32(), seed, -1, 1));
  };
  graph::ValueId conv = g.add_op("conv2d", {x, constant("w", {8, 8, 3, 3}, 1)}, {{"pads", graph::Ints{1, 1, 1, 1}}});
  graph::ValueId y = g.add_op("relu", {g.add_op("bias_add", {conv, constant("b", {8}, 2)}, {{"axis", int64_t{1}}})});
  graph::ValueId pool = g.add_op("avg_pool2d", {g.add_op("add", {y, x})},
                                 {{"kernel_shape", graph::Ints{2, 2}}, {"strides", graph::Ints{2, 2}}});
  g.add_output(pool);
  g.add_output(y);
  return g;
}

const CompiledModel& model() {
  static const CompiledModel compiled = [] {
    CompiledModel m = compile_model(graph::optimize_graph(small_model()), Target::parse("llvm_cpu -isa=avx2"));
    if (const char* seed = std::getenv("TESSEL_FUZZ_WRITE_SEED")) std::ofstream(seed) << m.graph.dump();
    return m;
  }();
  return compiled;
}

bool storages_too_large(const nlohmann::json& graph) {
  if (!graph.is_object() || !graph.contains("storages")) return false;
  std::optional<std::vector<int64_t>> sizes = json_integers(graph["storages"]);
  if (!sizes) return false;
  int64_t total = 0;
  for (int64_t bytes : *sizes) {
    if (bytes > (int64_t{64} << 20) - total) return true;
    total += std::max<int64_t>(bytes, 0);
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  model();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json graph = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (graph.is_discarded() || storages_too_large(graph)) return 0;
  // Copies: a graph may pass a param where a kernel writes, which must not reach the next input.
  std::vector<NamedArray> params;
  for (const NamedArray& p : model().params) params.push_back({p.name, p.array.copy()});
  try {
    GraphExecutor exec(model().module, graph, std::move(params), "fuzz graph.json");
    std::map<std::string, NDArray> inputs;
    for (size_t i = 0; i < exec.num_inputs(); ++i)
      inputs[exec.input_name(i)] = NDArray::zeros(exec.input_shape(i), ElementType::of<float>());
    // A graph may declare an input of another element type; set_input refuses the zeros then.
    std::vector<NDArray> outputs = exec.run(inputs);
    TESSEL_CHECK(outputs.size() == exec.num_outputs());
    for (size_t i = 0; i < outputs.size(); ++i)
      TESSEL_CHECK(outputs[i].shape() == exec.output_shape(i), "output ", i, " has the shape ",
                   shape_str(outputs[i].shape()), ", not the declared ", shape_str(exec.output_shape(i)));
  } catch (const UserError&) {
  }
  return 0;
}
