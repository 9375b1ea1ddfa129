// Modules: a back end builds several functions into one module that runs in this process, exports
// as a shared library and loads back with the same metadata and results, from both back ends and
// from a scheduled expression; a program linking only libtessel_runtime.so runs exported modules;
// bad files, names and arguments fail with messages that say what is wrong.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "backends/backend.h"
#include "ir/tensor.h"
#include "support/registry.h"
#include "backends/system_tools.h"
#include "tests/user_error_check.h"

using namespace tessel;

namespace {

constexpr int64_t kN = 1000;

FuncArg vector_arg(const std::string& name, int64_t n) {
  return FuncArg{Buffer(name, DataType::float32(), MemoryScope::global()), {n}};
}

// out[i] = a[i] * 3 + 1, with a serial or a parallel loop.
LoweredFunc scale(const std::string& name, ForKind kind, int64_t n = kN) {
  FuncArg a = vector_arg("a", n), out = vector_arg("out", n);
  Var i("i");
  Stmt body = make_store(out.buffer, i, load(a.buffer, i) * 3.0 + 1.0);
  return LoweredFunc{name, {a, out}, make_for(i, make_int(0), make_int(n), kind, body)};
}

NDArray run_scale(const Kernel& kernel, const NDArray& a) {
  NDArray in = a, out = NDArray::zeros(a.shape(), DataType::float32());
  kernel.run({&in, &out});
  return out;
}

std::unique_ptr<Backend> backend(const std::string& name) { return Registry<Backend>::instance().create(name); }

// Runs the runtime-only program on a module; its whole output.
std::string run_standalone(const std::string& module) {
  std::string command = std::string(TESSEL_BINARY_DIR) + "/run_module '" + module + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string output;
  char buffer[256];
  while (fgets(buffer, sizeof(buffer), pipe)) output += buffer;
  int status = pclose(pipe);
  INFO(output);
  CHECK(status == 0);
  return output;
}

}  // namespace

TEST_CASE("module: several functions build, run, export and load back", "[runtime][module]") {
  for (const char* kind : {"llvm_cpu", "c_source"}) {
    INFO(kind);
    Module module = backend(kind)->build({scale("serial", ForKind::Serial), scale("parallel", ForKind::Parallel)});
    REQUIRE(module.info().functions.size() == 2);
    CHECK(module.info().target.rfind(kind, 0) == 0);
    const FunctionInfo& f = module.info().functions[1];
    CHECK(f.name == "parallel");
    REQUIRE(f.args.size() == 2);
    CHECK(f.args[1].name == "out");
    CHECK(f.args[1].dtype == ElementType::of<float>());
    CHECK(f.args[1].shape == std::vector<int64_t>{kN});

    NDArray a = NDArray::random_uniform({kN}, DataType::float32(), 3);
    NDArray serial = run_scale(module.function("serial"), a), parallel = run_scale(module.function("parallel"), a);
    CHECK(max_abs_diff(serial, parallel) == 0.0);
    CHECK(serial.get_double(7) == Approx(a.get_double(7) * 3 + 1));

    TempDir dir("tessel-module-test-");
    std::string path = (dir.path() / "kernels.so").string();
    module.export_library(path);
    Module loaded = load_module(path);
    CHECK(loaded.info().to_json() == module.info().to_json());
    CHECK(max_abs_diff(run_scale(loaded.function("parallel"), a), serial) == 0.0);
    loaded.export_library((dir.path() / "again.so").string());  // a loaded module exports its own bytes
    CHECK(max_abs_diff(run_scale(load_module((dir.path() / "again.so").string()).function("serial"), a), serial) == 0.0);
    CHECK_THAT(run_standalone(path), Catch::Contains("ok serial parallel"));
  }
}

TEST_CASE("module: a kernel keeps its module alive", "[runtime][module]") {
  Kernel kernel = backend("llvm_cpu")->build({scale("alone", ForKind::Serial, 8)}).function("alone");
  NDArray a = NDArray::random_uniform({8}, DataType::float32(), 1);
  CHECK(run_scale(kernel, a).get_double(2) == Approx(a.get_double(2) * 3 + 1));
}

TEST_CASE("module: a scheduled expression lowers on demand and builds like its lowered function", "[runtime][module]") {
  Tensor a = placeholder({64}, DataType::float32(), "a");
  Tensor out = compute({64}, [&](Var i) { return a(i) * 3.0 + 1.0; }, "out");
  BuildInput input = BuildInput::from_schedule(create_schedule({out}), {a, out}, "from_te");
  CHECK(input.has_schedule());
  CHECK(input.lowered().name == "from_te");
  CHECK(&input.lowered() == &input.lowered());  // lowered once
  Module module = backend("llvm_cpu")->build({input});
  NDArray x = NDArray::random_uniform({64}, DataType::float32(), 2);
  CHECK(run_scale(module.function("from_te"), x).get_double(5) == Approx(x.get_double(5) * 3 + 1));
  BuildInput given(scale("given", ForKind::Serial));
  CHECK_FALSE(given.has_schedule());
  CHECK_THROWS_AS(given.schedule(), InternalError);
}

TEST_CASE("module: bad builds, files, names and arguments are user errors", "[runtime][module]") {
  auto llvm = backend("llvm_cpu");
  test::require_user_error([&] { llvm->build({}); }, "at least one function");
  test::require_user_error([&] { llvm->build({scale("twice", ForKind::Serial), scale("twice", ForKind::Parallel)}); },
                           {"two functions", "'twice'"});
  FuncArg out4 = vector_arg("out", 4);
  // A function no CPU back end generates: it allocates GPU shared memory.
  Buffer tile("tile", DataType::float32(), MemoryScope("shared"));
  LoweredFunc broken{"broken", {out4}, make_allocate(tile, 4, make_store(out4.buffer, make_int(0), load(tile, 0)))};
  for (const char* kind : {"llvm_cpu", "c_source"})
    test::require_user_error([&] { backend(kind)->build({scale("fine", ForKind::Serial), broken}); },
                             "memory scope 'shared'");
  Module module = llvm->build({scale("only", ForKind::Serial, 4)});
  test::require_user_error([&] { module.function("other"); }, {"no function 'other'", "only"});
  NDArray small = NDArray::zeros({3}, DataType::float32()), out = NDArray::zeros({4}, DataType::float32());
  test::require_user_error([&] { module.function("only").run({&small, &out}); }, {"'a'", "float32[4]", "float32[3]"});
  test::require_user_error([&] { module.function("only").run({&out}); }, "takes 2 arrays");

  TempDir dir("tessel-module-test-");
  test::require_user_error([&] { load_module((dir.path() / "absent.so").string()); }, {"absent.so", "no such file"});
  std::ofstream((dir.path() / "text.so").string()) << "not a library";
  test::require_user_error([&] { load_module((dir.path() / "text.so").string()); }, {"cannot load module", "text.so"});
  test::require_user_error([&] { load_module("/lib/x86_64-linux-gnu/libm.so.6"); }, "not a Tessel module");
  test::require_user_error([&] { module.export_library((dir.path() / "no/such/dir/m.so").string()); }, "no/such/dir/m.so");
  test::require_user_error([] { ModuleInfo::from_json("{\"format\": \"tessel-module\", \"version\": 9}", "x"); },
                           "version 9");
  test::require_user_error([] { ModuleInfo::from_json("{\"format\": \"tessel-module\", \"version\": 1}", "x"); },
                           "malformed");
  // Fields of another type, shapes no array has: refused, never converted (ModuleInfo is fuzzed:
  // fuzz/module_info_fuzzer.cpp).
  test::require_user_error([] { ModuleInfo::from_json("{\"format\": 5, \"version\": 1}", "x"); }, "does not hold");
  test::require_user_error([] { ModuleInfo::from_json("{\"format\": \"tessel-module\", \"version\": \"1\"}", "x"); },
                           "version \"1\"");
  auto with_shape = [](const std::string& shape) {
    return "{\"format\": \"tessel-module\", \"version\": 1, \"target\": \"llvm_cpu\", \"functions\": [{\"name\": "
           "\"f\", \"symbol\": \"f_packed\", \"args\": [{\"name\": \"a\", \"dtype\": \"float32\", \"shape\": " +
           shape + "}]}]}";
  };
  CHECK(ModuleInfo::from_json(with_shape("[2, 3]"), "x").functions.at(0).args.at(0).shape == std::vector<int64_t>{2, 3});
  test::require_user_error([&] { ModuleInfo::from_json(with_shape("[2, -3]"), "x"); }, {"'a' of 'f'", "negative"});
  test::require_user_error([&] { ModuleInfo::from_json(with_shape("[1e300]"), "x"); }, {"'a' of 'f'", "not integers"});
  test::require_user_error([&] { ModuleInfo::from_json(with_shape("[4294967296, 4294967296]"), "x"); }, "2^62");
}
