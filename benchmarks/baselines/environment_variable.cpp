// Setting an environment variable (benchmarks/baselines/environment_variable.h).
#include "benchmarks/baselines/environment_variable.h"

#include <cstdlib>
#include <cstring>

namespace tessel {

bool set_environment_variable(const char* name, const char* value) {
  const char* now = std::getenv(name);
  if (value ? now && std::strcmp(now, value) == 0 : !now) return false;
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  return true;
}

const char* isa_cap(const Target& target, const char* avx2, const char* sse4) {
  CpuIsa isa = target.cpu().isa;
  return isa >= host_cpu().isa ? nullptr : isa == CpuIsa::AVX2 ? avx2 : sse4;
}

}  // namespace tessel
