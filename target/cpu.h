// What a CPU offers the code generated for it: instruction-set level, vector width and registers,
// FMA throughput, caches and threads. Schedules derive their register tiles and cache blocks from
// this description instead of constants written for one machine, so the same operator is fast on
// an AVX2 CPU (16 ymm registers) and on an AVX-512 one (32 zmm registers).
//
//   Target target = Target::parse("llvm_cpu -isa=avx2");
//   const CpuDescription& cpu = target.cpu();
//   int lanes = cpu.lanes(32);                  // 8 floats per vector
//   int accumulators = cpu.min_accumulators();  // independent FMA chains that hide FMA latency
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace tessel {

// Instruction-set levels, in increasing order: each includes the ones before it.
enum class CpuIsa : uint8_t {
  SSE4,    // 128-bit vectors, 16 registers, no FMA
  AVX2,    // 256-bit vectors with FMA, 16 registers
  AVX512,  // 512-bit vectors (F, BW, DQ, VL, CD), 32 registers
};
const char* isa_name(CpuIsa isa);  // "sse4", "avx2", "avx512"
// Parses isa_name()'s names; std::nullopt for anything else.
std::optional<CpuIsa> parse_isa(const std::string& name);

struct CpuDescription {
  CpuIsa isa = CpuIsa::AVX2;
  int vector_bits = 256;       // widest vector register of the ISA
  int vector_registers = 16;   // architectural vector registers
  int fma_units = 2;           // vector FMA pipes per core
  int fma_latency = 4;         // cycles from an FMA's inputs to its result
  int64_t l1d_bytes = 32 << 10;  // per core
  int64_t l2_bytes = 512 << 10;  // per core
  int64_t l3_bytes = 16 << 20;   // shared by all cores
  int threads = 1;             // worker threads a kernel's parallel loops may use
  // Bytes ahead of its reads that a kernel streaming weights prefetches them (Stage::prefetch),
  // 0 for none. In a model every layer's weights come from memory, and the hardware prefetchers
  // stop at each 4 KiB page; two pages ahead cover a memory latency on the machines measured
  // (docs/graph.md, "Weight prefetch"). While it is not 0, a k×k convolution also streams its
  // kernel into L2 one register tile's slice ahead.
  int64_t prefetch_bytes = 8 << 10;
  // The same for the Winograd convolution's batched GEMM, whose weights each serve only one
  // register tile of input tiles. The host's is 2 KiB on Intel CPUs, 4 KiB on AMD ones (measured
  // on a Xeon and on Zen 5: docs/graph.md, "Weight prefetch") and 0 on the others.
  int64_t winograd_prefetch_bytes = 0;

  // Elements of `element_bits` bits in one vector register.
  int lanes(int element_bits) const { return vector_bits / element_bits; }
  // Independent accumulators a reduction needs so that every FMA pipe issues each cycle.
  int min_accumulators() const { return fma_units * fma_latency; }

  bool operator==(const CpuDescription&) const = default;
};

// The vector width and register count that come with an ISA level.
int isa_vector_bits(CpuIsa isa);
int isa_vector_registers(CpuIsa isa);

// This machine's CPU: its highest ISA level (as the CPU and OS support it), caches (from the
// kernel's sysfs, else from CPUID, else common sizes) and hardware thread count.
// Computed once.
const CpuDescription& host_cpu();

// A one-line description of the host CPU for reports: model name and ISA, e.g.
// "AMD EPYC 7B13 (avx2)".
std::string host_cpu_name();

}  // namespace tessel
