// The C API of compiled models (runtime/c_api.h): a C program linked with the runtime library alone
// (tests/graph/programs/run_model.c) loads an exported model, runs it on an input it makes, and its
// output must equal the graph executor's on the same input here.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "compiler/compile_model.h"
#include "frontends/onnx/onnx_importer.h"
#include "tests/frontends/compare_arrays.h"

using namespace tessel;

TEST_CASE("C API: a C program runs an exported model", "[graph][c_api]") {
  std::string dir = (std::filesystem::temp_directory_path() / ("tessel_c_api_" + std::to_string(getpid()))).string();
  graph::OptimizedGraph opt = graph::optimize_graph(frontend::import_onnx(std::string(TESSEL_BINARY_DIR) + "/models/dcgan.onnx"));
  CompiledModel model = compile_model(opt);
  export_model(model, dir);
  std::string command = std::string(TESSEL_BINARY_DIR) + "/run_model '" + dir + "' '" + dir + "/y.bin' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe);
  char text[4096] = {0};
  size_t got = fread(text, 1, sizeof text - 1, pipe);
  int status = pclose(pipe);
  INFO(std::string(text, got));
  REQUIRE(status == 0);

  GraphExecutor exec = model.executor();
  const std::vector<int64_t>& shape = exec.input_shape(0);
  NDArray x = NDArray::empty(shape, ElementType::of<float>());
  for (int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = std::sin(0.01f * static_cast<float>(i));
  exec.set_input(exec.input_name(0), x);
  exec.run();
  NDArray expected = exec.output(0);
  NDArray actual = NDArray::empty(expected.shape(), expected.dtype());
  std::ifstream in(dir + "/y.bin", std::ios::binary);
  in.read(static_cast<char*>(actual.data()), static_cast<std::streamsize>(actual.nbytes()));
  REQUIRE(in.gcount() == static_cast<std::streamsize>(actual.nbytes()));
  CHECK(test::compare_arrays(actual, expected, 0, 0).close);
  std::filesystem::remove_all(dir);
}
