// The oneDNN convolution baselines: see onednn.h.
#include "benchmarks/baselines/onednn.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "benchmarks/baselines/environment_variable.h"
#include "support/error.h"
#include "support/timing.h"

namespace tessel {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

// Everything one prepared convolution keeps alive between calls.
struct ConvState {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  std::unordered_map<int, memory> args;
  memory::desc nchw_output;
};

memory::dims weight_dims(const Conv2dShape& s) {
  if (s.groups == 1) return {s.oc, s.c, s.kh, s.kw};
  return {s.groups, s.oc / s.groups, s.c / s.groups, s.kh, s.kw};
}

memory::desc any_layout(const memory::dims& dims) { return {dims, memory::data_type::f32, Tag::any}; }

dnnl::convolution_forward::primitive_desc make_primitive_desc(const Conv2dShape& s, const dnnl::engine& engine) {
  memory::dims src{s.n, s.c, s.h, s.w}, dst{s.n, s.oc, s.out_h(), s.out_w()};
  memory::dims strides{s.stride, s.stride}, padding{s.pad, s.pad};
  memory::dims dilation{s.dilation - 1, s.dilation - 1};  // oneDNN counts the gaps, 0 = dense
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                       any_layout(src), any_layout(weight_dims(s)), any_layout(dst), strides,
                                       dilation, padding, padding);
  return {desc, engine};
}

// A copy of canonical-layout data in the layout the primitive wants.
memory reordered_copy(ConvState& state, const float* data, const memory::dims& dims, Tag canonical,
                      const memory::desc& wanted) {
  memory source({dims, memory::data_type::f32, canonical}, state.engine, const_cast<float*>(data));
  memory target(wanted, state.engine);
  dnnl::reorder(source, target).execute(state.stream, source, target);
  state.stream.wait();
  return target;
}

void read_nchw(ConvState& state, float* out) {
  memory& dst = state.args.at(DNNL_ARG_DST);
  memory nchw(state.nchw_output, state.engine, out);
  dnnl::reorder(dst, nchw).execute(state.stream, dst, nchw);
  state.stream.wait();
}

}  // namespace

bool limit_openmp_spin_wait() {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return false;
  setenv("GOMP_SPINCOUNT", "1000", 1);
  return true;
}

bool set_onednn_max_isa_for(const Target& target) {
  bool changed = set_environment_variable("ONEDNN_MAX_CPU_ISA", isa_cap(target, "AVX2", "SSE41"));
  changed |= set_environment_variable("DNNL_MAX_CPU_ISA", nullptr);
  return changed;
}

std::string onednn_isa_name() {
  using dnnl::cpu_isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case cpu_isa::sse41: return "sse41";
    case cpu_isa::avx: return "avx";
    case cpu_isa::avx2: return "avx2";
    case cpu_isa::avx2_vnni: return "avx2_vnni";
    case cpu_isa::avx512_core: return "avx512_core";
    case cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

void set_onednn_threads(int threads) {
  // Looked up at run time: libgomp comes in with libdnnl, but this library is not linked to it.
  using SetThreads = void (*)(int);
  static auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  TESSEL_CHECK(set_threads, "oneDNN's OpenMP runtime (omp_set_num_threads) is not loaded");
  set_threads(threads);
}

PreparedKernel prepare_onednn_conv2d(const Conv2dShape& s, const float* x_nchw, const float* w_oihw, int threads) {
  set_onednn_threads(threads);
  auto state = std::make_shared<ConvState>();
  auto pd = make_primitive_desc(s, state->engine);
  state->conv = dnnl::convolution_forward(pd);
  Tag weight_tag = s.groups == 1 ? Tag::oihw : Tag::goihw;
  state->args = {{DNNL_ARG_SRC, reordered_copy(*state, x_nchw, {s.n, s.c, s.h, s.w}, Tag::nchw, pd.src_desc())},
                 {DNNL_ARG_WEIGHTS, reordered_copy(*state, w_oihw, weight_dims(s), weight_tag, pd.weights_desc())},
                 {DNNL_ARG_DST, memory(pd.dst_desc(), state->engine)}};
  state->nchw_output = {{s.n, s.oc, s.out_h(), s.out_w()}, memory::data_type::f32, Tag::nchw};
  auto run = [state, threads] {
    set_onednn_threads(threads);  // a thread-local setting: cheap, and keeps the kernel self-contained
    state->conv.execute(state->stream, state->args);
    state->stream.wait();
  };
  auto evict_weights = [state] {
    const memory& weights = state->args.at(DNNL_ARG_WEIGHTS);
    evict_from_caches(weights.get_data_handle(), weights.get_desc().get_size());
  };
  return {"onednn", run, [state](float* out) { read_nchw(*state, out); }, evict_weights};
}

PreparedKernel prepare_onednn_depthwise(const DepthwiseShape& s, const float* x_nchw, const float* w_c1kk, int threads) {
  return prepare_onednn_conv2d(s.as_conv2d(), x_nchw, w_c1kk, threads);
}

}  // namespace tessel
