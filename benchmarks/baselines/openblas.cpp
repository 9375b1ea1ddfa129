// The OpenBLAS GEMM baseline and the presets that hold it to the benchmark's target (openblas.h).
#include "benchmarks/baselines/openblas.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "benchmarks/baselines/environment_variable.h"
#include "support/timing.h"

namespace tessel {

namespace {

struct GemmBuffers {
  std::vector<float> a, b, c;
};

}  // namespace

PreparedKernel prepare_openblas_gemm(const GemmShape& shape, const float* a, const float* b, int threads) {
  auto buffers = std::make_shared<GemmBuffers>();
  buffers->a.assign(a, a + shape.m * shape.k);
  buffers->b.assign(b, b + shape.k * shape.n);
  buffers->c.assign(shape.m * shape.n, 0.0f);
  openblas_set_num_threads(threads);
  auto run = [buffers, shape] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, shape.m, shape.n, shape.k, 1.0f,
                buffers->a.data(), shape.k, buffers->b.data(), shape.n, 0.0f, buffers->c.data(), shape.n);
  };
  auto read_output = [buffers](float* out) { std::copy(buffers->c.begin(), buffers->c.end(), out); };
  auto evict_weights = [buffers] { evict_from_caches(buffers->b.data(), buffers->b.size() * sizeof(float)); };
  return {"openblas", run, read_output, evict_weights};
}

std::string openblas_corename() { return openblas_get_corename(); }

bool set_openblas_presets_for(const Target& target) {
  bool changed = set_environment_variable("OPENBLAS_CORETYPE", isa_cap(target, "Haswell", "Nehalem"));
  changed |= set_environment_variable("OPENBLAS_L2_SIZE", nullptr);
  return changed;
}

bool stop_openblas_idle_spinning() {
  if (std::getenv("OPENBLAS_THREAD_TIMEOUT")) return false;
  setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);  // the smallest OpenBLAS accepts: 2^4 cycles
  return true;
}

}  // namespace tessel
