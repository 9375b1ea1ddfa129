// The getting-started example (docs/getting-started.md): a matrix multiply written as a tensor
// expression, scheduled, lowered, compiled for this CPU and checked against the reference
// interpreter. The test suite builds and runs it.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "backends/backend.h"
#include "ir/printer.h"
#include "ir/schedule.h"
#include "ir/te_interpreter.h"
#include "passes/lower/lower.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "support/registry.h"

using namespace tessel;

int main() {
  // 1. What to compute: C[i, j] = sum over k of A[i, k] * B[k, j].
  const int64_t n = 256;
  Tensor a = placeholder({n, n}, DataType::float32(), "A");
  Tensor b = placeholder({n, n}, DataType::float32(), "B");
  IterVar k = reduce_axis(n, "k");
  Tensor c = compute({n, n}, [&](Var i, Var j) { return sum(a(i, k) * b(k, j), {k}); }, "C");

  // 2. How to compute it: 8 x 32 tiles of C accumulated in a local buffer, the k loop outside
  //    the tile, 16-lane vectors, and the row blocks spread over threads.
  Schedule s = create_schedule({c});
  Tensor acc = s.cache_write(c);
  auto [io, jo, ii, ji] = s[c].tile(s[c].axis(0), s[c].axis(1), 8, 32);
  s[c].parallel(io);
  s[c].vectorize(ji);
  s[acc].compute_at(s[c], jo);
  auto [jv, jl] = s[acc].split(s[acc].axis(1), 16);
  s[acc].reorder({s[acc].reduce_axis(0), s[acc].axis(0), jv, jl});
  s[acc].unroll(s[acc].axis(0));
  s[acc].unroll(jv);
  s[acc].vectorize(jl);

  // 3. Lower to loops and print them.
  LoweredFunc func = lower(s, {a, b, c}, "matmul");
  std::cout << to_string(func) << "\n";

  // 4. Compile for this CPU and run on arrays.
  auto backend = Registry<Backend>::instance().create("llvm_cpu");
  auto kernel = backend->compile(func);
  NDArray a_data = NDArray::random_uniform({n, n}, DataType::float32(), 1);
  NDArray b_data = NDArray::random_uniform({n, n}, DataType::float32(), 2);
  NDArray c_data = NDArray::zeros({n, n}, DataType::float32());
  kernel->run({&a_data, &b_data, &c_data});

  //    The same function as a module exported to a shared library and loaded back, as a
  //    program linking only libtessel_runtime.so would.
  std::string path = (std::filesystem::temp_directory_path() / ("matmul" + std::to_string(getpid()) + ".so")).string();
  backend->build({func}).export_library(path);
  Module module = load_module(path);
  NDArray c_loaded = NDArray::zeros({n, n}, DataType::float32());
  module.function("matmul").run({&a_data, &b_data, &c_loaded});
  std::filesystem::remove(path);

  // 5. Check against the interpreter, which evaluates the tensor expression directly.
  NDArray expected = evaluate(c, {{a, a_data}, {b, b_data}});
  double err = std::max(max_abs_diff(c_data, expected), max_abs_diff(c_loaded, expected));
  std::cout << "max abs error vs reference: " << err << "\n";
  return err < 1e-3 ? 0 : 1;
}
