// Output and interfaces of the LLVM CPU back end: LLVM IR and assembly text, object files and
// shared libraries that load and run, the registry entry, checked run(), and errors for IR it
// cannot compile.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <filesystem>

#include "ir/tensor.h"
#include "support/registry.h"
#include "tests/llvm_cpu/llvm_test_util.h"

using namespace tessel;
using namespace tessel::test;

namespace {

// out[i] = a[i] * 3 + 1
LoweredFunc scale(const std::string& name, int64_t n) {
  FuncArg a = vector_arg("a", DataType::float32(), n), out = vector_arg("out", DataType::float32(), n);
  Var i("i");
  return LoweredFunc{name, {a, out}, loop(i, n, make_store(out.buffer, i, load(a.buffer, i) * 3.0 + 1.0))};
}

std::filesystem::path scratch_dir() {
  auto dir = std::filesystem::temp_directory_path() / ("tessel_llvm_cpu_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("LLVM IR and assembly name both entries", "[llvm_cpu][emit]") {
  LoweredFunc func = scale("scale_text", 64);
  std::string ir = emit_llvm_ir(func);
  CHECK(ir.find("define void @scale_text(") != std::string::npos);
  CHECK(ir.find("@scale_text_packed(") != std::string::npos);
  CHECK(ir.find("noalias") != std::string::npos);
  std::string assembly = emit_assembly(func);
  CHECK(assembly.find("scale_text_packed:") != std::string::npos);
  auto backend = Registry<Backend>::instance().create("llvm_cpu");
  CHECK(backend->emit(func, "llvm") .find("@scale_text(") != std::string::npos);
  CHECK_THROWS_WITH(backend->emit(func, "verilog"), Catch::Contains("llvm, asm"));
}

TEST_CASE("an exported shared library loads and computes the same as the JIT", "[llvm_cpu][emit]") {
  const int64_t n = 100;
  LoweredFunc func = scale("scale_exported", n);
  auto dir = scratch_dir();
  std::string lib = (dir / "scale.so").string();
  write_shared_library(func, lib);
  write_object_file(func, (dir / "scale.o").string());
  CHECK(std::filesystem::file_size(dir / "scale.o") > 0);

  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(handle != nullptr);
  auto packed = reinterpret_cast<void (*)(void* const*)>(dlsym(handle, "scale_exported_packed"));
  auto typed = reinterpret_cast<void (*)(float*, float*)>(dlsym(handle, "scale_exported"));
  REQUIRE(packed != nullptr);
  REQUIRE(typed != nullptr);
  NDArray a = NDArray::random_uniform({n}, DataType::float32(), 4);
  NDArray from_lib = NDArray::zeros({n}, DataType::float32()), from_typed = NDArray::zeros({n}, DataType::float32());
  void* args[] = {a.data(), from_lib.data()};
  packed(args);
  typed(a.data_as<float>(), from_typed.data_as<float>());
  std::vector<NDArray> jit_arrays = {a, NDArray::zeros({n}, DataType::float32())};
  run(*jit(func), jit_arrays);
  CHECK(max_abs_diff(from_lib, jit_arrays[1]) == 0.0);
  CHECK(max_abs_diff(from_typed, jit_arrays[1]) == 0.0);
  dlclose(handle);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the registry creates llvm_cpu with parameters", "[llvm_cpu][registry]") {
  auto& registry = Registry<Backend>::instance();
  auto backend = registry.create("llvm_cpu", {{"opt_level", 1}, {"fast_math", true}});
  CHECK(backend->name() == "llvm_cpu");
  std::vector<NDArray> arrays = {NDArray::random_uniform({16}, DataType::float32(), 2),
                                 NDArray::zeros({16}, DataType::float32())};
  run(*backend->compile(scale("scale_o1", 16)), arrays);
  CHECK(arrays[1].data_as<float>()[3] == Approx(arrays[0].data_as<float>()[3] * 3 + 1));
  CHECK_THROWS_AS(registry.create("llvm_cpu", {{"opt_level", 7}}), UserError);
}

TEST_CASE("run() checks argument count, shape and type", "[llvm_cpu][errors]") {
  auto f = jit(scale("scale_checked", 8));
  NDArray a = NDArray::zeros({8}, DataType::float32()), out = NDArray::zeros({8}, DataType::float32());
  NDArray wrong_shape = NDArray::zeros({9}, DataType::float32()), wrong_type = NDArray::zeros({8}, DataType::int32());
  CHECK_NOTHROW(f->run({&a, &out}));
  CHECK_THROWS_WITH(f->run({&a}), Catch::Contains("takes 2 arrays"));
  CHECK_THROWS_WITH(f->run({&a, &wrong_shape}), Catch::Contains("'out'"));
  CHECK_THROWS_WITH(f->run({&wrong_type, &out}), Catch::Contains("'a'"));
}

TEST_CASE("IR the back end cannot compile fails with a user error", "[llvm_cpu][errors]") {
  FuncArg out = vector_arg("out", DataType::float32(), 4);
  Var i("i"), stray("stray");
  CHECK_THROWS_WITH(jit(LoweredFunc{"unknown_call", {out}, make_store(out.buffer, make_int(0), call("erf", {make_float(1.0)}))}),
                    Catch::Contains("unknown intrinsic 'erf'"));
  CHECK_THROWS_WITH(jit(LoweredFunc{"stray_var", {out}, make_store(out.buffer, stray, make_float(1.0))}),
                    Catch::Contains("variable 'stray'"));
  Buffer unbound("nowhere", DataType::float32(), MemoryScope::local());
  CHECK_THROWS_WITH(jit(LoweredFunc{"stray_buffer", {out}, make_store(unbound, make_int(0), make_float(1.0))}),
                    Catch::Contains("buffer 'nowhere'"));
  CHECK_THROWS_WITH(jit(LoweredFunc{"bad name", {out}, make_store(out.buffer, make_int(0), make_float(1.0))}),
                    Catch::Contains("not a C identifier"));
  CHECK_THROWS_WITH(jit(LoweredFunc{"mistyped", {out}, make_store(out.buffer, make_int(0), make_int(3))}),
                    Catch::Contains("store of a int32 value into float32 buffer 'out'"));
  Tensor t = placeholder({4}, DataType::float32(), "T");
  CHECK_THROWS_WITH(jit(LoweredFunc{"unlowered", {out}, make_store(out.buffer, make_int(0), t(make_int(0)))}),
                    Catch::Contains("lower the schedule"));
}
