// ONNX conformance: the backend node tests of libonnx-testdata (one model per test, with inputs
// and expected outputs as TensorProto files) for every supported operator, imported, compiled node
// by node and run. A test whose model uses an unsupported operator is out of scope; one the
// importer refuses as unsupported (an element type, an attribute combination) is skipped with
// that reason; every other outcome is a pass or a failure, and failures fail this test. The
// tolerance is the ONNX backend tests' own: 1e-3 relative, 1e-7 absolute. The node tests pass some
// arguments Tessel needs at import (Reshape's shape, Slice's bounds, LSTM weights) as graph inputs;
// those are given to the importer as constants (ImportOptions::constant_inputs), as a user would,
// and counted in the summary.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/onnx_tensor.h"
#include "ops/graph/unfused_executor.h"
#include "tests/frontends/compare_arrays.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

const char* kNodeTests = "/usr/share/libonnx-testdata/data/node";

template <typename Message>
Message read_proto(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  Message m;
  REQUIRE(m.ParseFromIstream(&in));
  return m;
}

// The operator types of a model that the importer does not convert.
std::set<std::string> unsupported_ops(const ::onnx::ModelProto& model) {
  std::vector<std::string> supported = frontend::supported_onnx_ops();
  std::set<std::string> missing;
  for (const auto& n : model.graph().node())
    if (!(n.domain().empty() || n.domain() == "ai.onnx") ||
        !std::binary_search(supported.begin(), supported.end(), n.op_type()))
      missing.insert(n.op_type());
  return missing;
}

// The numbered TensorProto files of a data set ("input_0.pb", ...), in order.
std::vector<fs::path> numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int i = 0; fs::exists(dir / (prefix + std::to_string(i) + ".pb")); ++i)
    out.push_back(dir / (prefix + std::to_string(i) + ".pb"));
  return out;
}

enum class Outcome { Passed, Failed, Skipped };

struct Result {
  Outcome outcome;
  std::string detail;
  bool frozen = false;     // some inputs were given to the importer as constants
  bool no_kernel = false;  // the outputs were known at import (Shape, Constant): nothing compiled
};

// The inputs of a data set by graph input name (the model's inputs that are not initializers, in
// order, are input_0.pb, input_1.pb, ...).
std::map<std::string, NDArray> data_set_inputs(const ::onnx::ModelProto& model, const fs::path& dir) {
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<fs::path> files = numbered(dir, "input_");
  std::map<std::string, NDArray> inputs;
  size_t next = 0;
  for (const auto& in : model.graph().input()) {
    if (initializers.count(in.name())) continue;
    bool tensor = in.type().has_tensor_type();  // sequences and optionals: the importer refuses the model
    if (tensor && next < files.size())
      inputs[in.name()] = frontend::to_ndarray(read_proto<::onnx::TensorProto>(files[next]), in.name());
    ++next;
  }
  return inputs;
}

// Imports the model with the inputs it needs at import time given as constants (the node tests
// pass shapes, axes and weights as inputs; Tessel needs them static). Those inputs are removed
// from `inputs`.
graph::Graph import_freezing(const fs::path& model, std::map<std::string, NDArray>& inputs, bool& frozen) {
  frontend::ImportOptions options;
  for (;;) {
    try {
      return frontend::import_onnx(model.string(), options);
    } catch (const frontend::NeedsConstantInput& e) {
      auto it = inputs.find(e.input);
      if (it == inputs.end() || options.constant_inputs.count(e.input)) throw;
      options.constant_inputs[e.input] = it->second;
      inputs.erase(it);
      frozen = true;
    }
  }
}

Result run_data_set(const ::onnx::ModelProto& model, const fs::path& test, const fs::path& dir) {
  std::map<std::string, NDArray> inputs = data_set_inputs(model, dir);
  Result result{Outcome::Passed, ""};
  graph::Graph g = import_freezing(test / "model.onnx", inputs, result.frozen);
  ops::UnfusedExecutor exec(g);
  result.no_kernel = exec.num_steps() == 0;
  std::vector<NDArray> out = exec.run(inputs);
  std::vector<fs::path> expected = numbered(dir, "output_");
  if (expected.size() != out.size())
    return {Outcome::Failed,
            "the graph has " + std::to_string(out.size()) + " outputs, the test " + std::to_string(expected.size())};
  for (size_t i = 0; i < out.size(); ++i) {
    NDArray want = frontend::to_ndarray(read_proto<::onnx::TensorProto>(expected[i]), "expected output");
    test::Closeness c = test::compare_arrays(out[i], want, 1e-3, 1e-7);
    if (!c.close)
      return {Outcome::Failed, "output " + std::to_string(i) + " differs: " + c.problem + " max abs diff " +
                                   std::to_string(c.max_abs) + ", max rel diff " + std::to_string(c.max_rel)};
  }
  return result;
}

Result run_test(const ::onnx::ModelProto& model, const fs::path& test) {
  try {
    Result result{Outcome::Passed, ""};
    for (const auto& entry : fs::directory_iterator(test)) {
      if (!entry.is_directory()) continue;
      Result r = run_data_set(model, test, entry.path());
      if (r.outcome != Outcome::Passed) return r;
      result.frozen = result.frozen || r.frozen;
      result.no_kernel = r.no_kernel;
    }
    return result;
  } catch (const frontend::UnsupportedModel& e) {
    return {Outcome::Skipped, e.what()};
  } catch (const std::exception& e) {
    return {Outcome::Failed, e.what()};
  }
}

}  // namespace

TEST_CASE("ONNX backend node tests of the supported operators pass", "[conformance]") {
  if (!fs::exists(kNodeTests))
    FAIL("the ONNX node tests are missing: install libonnx-testdata (scripts/install-deps.sh)");
  std::vector<fs::path> tests;
  for (const auto& entry : fs::directory_iterator(kNodeTests)) tests.push_back(entry.path());
  std::sort(tests.begin(), tests.end());
  std::map<Outcome, std::vector<std::string>> by_outcome;
  int out_of_scope = 0, frozen = 0, static_only = 0;
  for (const fs::path& dir : tests) {
    auto model = read_proto<::onnx::ModelProto>(dir / "model.onnx");
    if (!unsupported_ops(model).empty()) {
      ++out_of_scope;
      continue;
    }
    Result r = run_test(model, dir);
    by_outcome[r.outcome].push_back(dir.filename().string() + (r.detail.empty() ? "" : ": " + r.detail));
    frozen += r.outcome == Outcome::Passed && r.frozen;
    static_only += r.outcome == Outcome::Passed && r.no_kernel;
  }
  for (const std::string& s : by_outcome[Outcome::Skipped]) std::cout << "  skipped " << s << "\n";
  for (const std::string& s : by_outcome[Outcome::Failed]) std::cout << "  FAILED  " << s << "\n";
  std::cout << "ONNX node tests: " << by_outcome[Outcome::Passed].size() << " passed (" << frozen
            << " with inputs given as constants at import, " << static_only
            << " computed entirely at import), " << by_outcome[Outcome::Failed].size() << " failed, "
            << by_outcome[Outcome::Skipped].size() << " skipped; " << out_of_scope
            << " more use operators Tessel does not support\n";
  CHECK(by_outcome[Outcome::Failed].empty());
  CHECK(by_outcome[Outcome::Passed].size() > 200);
}
