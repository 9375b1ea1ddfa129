// The ONNX frontend: reads an ONNX model (opsets 7 to 17, as libonnx 1.12 defines them) into a
// graph of Tessel operators (ir/graph/graph.h) with static shapes.
//
// ONNX operators become graph operators, several where ONNX bundles steps (Conv's bias becomes a
// bias_add, Gemm a dense with its scaling and bias, LSTM its cell unrolled over the static sequence
// length); Identity and Dropout (inference) disappear; Shape, and integer arithmetic on shapes,
// are evaluated during import, so Reshape and Slice get static arguments. Initializers become
// constants. The supported operators are listed by supported_onnx_ops() and in docs/graph.md.
//
// Every problem is a UserError naming what and where ("node 'conv1' (Conv): ..."):
//   - a file that is missing, truncated, malformed or not ONNX; an IR version or opset outside
//     the supported range; a node reading a value nothing defines (a missing initializer);
//     dynamic input dimensions not fixed by ImportOptions;
//   - a valid model using something Tessel does not implement is an UnsupportedModel (a
//     UserError): an unsupported operator (all of them are reported at once, with node names,
//     before anything is converted), element type or attribute combination.
//
//   graph::Graph g = frontend::import_onnx("resnet18.onnx");
//   graph::Graph h = frontend::import_onnx("model.onnx", {.dim_params = {{"batch", 1}}});
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph/graph.h"
#include "runtime/ndarray.h"
#include "support/error.h"

namespace tessel::frontend {

struct UnsupportedModel : UserError {
  using UserError::UserError;
};

// An operator needs the value of a graph input at import (see ImportOptions::constant_inputs).
struct NeedsConstantInput : UnsupportedModel {
  NeedsConstantInput(const std::string& message, std::string name)
      : UnsupportedModel(message), input(std::move(name)) {}
  std::string input;  // the graph input's name
};

struct ImportOptions {
  // The full shape of a graph input, by name: fixes its dynamic dimensions (static ones must agree).
  std::map<std::string, std::vector<int64_t>> input_shapes = {};
  // The size of a symbolic dimension (an ONNX dim_param such as "batch_size"), wherever it appears.
  std::map<std::string, int64_t> dim_params = {};
  // Graph inputs given their value at import: they become constants, for models that take
  // arguments an operator needs statically (a Reshape's shape, Clip's bounds, LSTM weights) as
  // inputs. The value must have the input's element type (and its declared static dimensions).
  std::map<std::string, NDArray> constant_inputs = {};
};

constexpr int kMinOpset = 7;
constexpr int kMaxOpset = 17;

graph::Graph import_onnx(const std::string& path, const ImportOptions& options = {});
// The same from bytes in memory; `source` names them in messages.
graph::Graph import_onnx_bytes(const void* data, size_t size, const std::string& source,
                               const ImportOptions& options = {});

// The ONNX operator types the importer converts, sorted.
std::vector<std::string> supported_onnx_ops();

}  // namespace tessel::frontend
