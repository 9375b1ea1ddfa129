// CPU descriptions and host detection (target/cpu.h).
#include "target/cpu.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <fstream>
#include <string>
#include <thread>

namespace tessel {

namespace {

// "48K", "1024K", "32M" as sysfs writes cache sizes; 0 if unreadable.
int64_t parse_cache_size(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) return 0;
  int64_t value = std::stoll(text.substr(0, digits));
  char unit = digits < text.size() ? text[digits] : ' ';
  if (unit == 'K') return value << 10;
  if (unit == 'M') return value << 20;
  return value;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

void set_cache_size(CpuDescription& cpu, int level, int64_t bytes) {
  if (bytes <= 0) return;
  if (level == 1) cpu.l1d_bytes = bytes;
  if (level == 2) cpu.l2_bytes = bytes;
  if (level == 3) cpu.l3_bytes = bytes;
}

// The data and unified caches the kernel reports for cpu0; false if it reports none (some
// virtual machines expose no cache topology in sysfs).
bool read_sysfs_caches(CpuDescription& cpu) {
  bool found = false;
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    int64_t size = parse_cache_size(read_line(dir + "size"));
    if (level.empty() || size == 0 || type == "Instruction") continue;
    set_cache_size(cpu, std::atoi(level.c_str()), size);
    found = true;
  }
  return found;
}

// The same from the CPU itself: the deterministic cache leaf (Intel's 4, AMD's 0x8000001D), else
// AMD's older size leaves (0x80000005/6), which hypervisors that hide the topology still pass on.
void read_cpuid_caches(CpuDescription& cpu) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned max_basic = __get_cpuid_max(0, nullptr), max_extended = __get_cpuid_max(0x80000000, nullptr);
  for (unsigned leaf : {4u, 0x8000001Du}) {
    if (leaf > (leaf < 0x80000000 ? max_basic : max_extended)) continue;
    bool found = false;
    for (unsigned index = 0; index < 8; ++index) {
      unsigned a, b, c, d;
      __cpuid_count(leaf, index, a, b, c, d);
      unsigned type = a & 31;  // 0: no more caches, 1: data, 2: instruction, 3: unified
      if (type == 0) break;
      if (type == 2) continue;
      int64_t ways = ((b >> 22) & 0x3ff) + 1, partitions = ((b >> 12) & 0x3ff) + 1, line = (b & 0xfff) + 1;
      set_cache_size(cpu, (a >> 5) & 7, ways * partitions * line * (int64_t{c} + 1));
      found = true;
    }
    if (found) return;
  }
  if (max_extended < 0x80000006) return;
  unsigned a, b, c, d;
  __cpuid(0x80000005, a, b, c, d);
  set_cache_size(cpu, 1, int64_t{c >> 24} << 10);         // L1d in KB
  __cpuid(0x80000006, a, b, c, d);
  set_cache_size(cpu, 2, int64_t{c >> 16} << 10);         // L2 in KB
  set_cache_size(cpu, 3, int64_t{d >> 18} * (512 << 10));  // L3 in 512 KB units
#else
  (void)cpu;
#endif
}

// Fills the cache sizes from sysfs, else CPUID; leaves the defaults where neither says anything.
void read_host_caches(CpuDescription& cpu) {
  if (!read_sysfs_caches(cpu)) read_cpuid_caches(cpu);
}

CpuIsa detect_host_isa() {
  __builtin_cpu_init();
  // libgcc's answers include the operating system's support (XSAVE state) for the registers.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return CpuIsa::AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuIsa::AVX2;
  return CpuIsa::SSE4;
}

CpuDescription detect_host_cpu() {
  CpuDescription cpu;
  cpu.isa = detect_host_isa();
  cpu.vector_bits = isa_vector_bits(cpu.isa);
  cpu.vector_registers = isa_vector_registers(cpu.isa);
  cpu.fma_units = cpu.isa == CpuIsa::SSE4 ? 1 : 2;
  read_host_caches(cpu);
  // Each distance as measured on that vendor's cores (docs/graph.md, "Weight prefetch").
  if (__builtin_cpu_is("intel")) cpu.winograd_prefetch_bytes = 2 << 10;
  if (__builtin_cpu_is("amd")) cpu.winograd_prefetch_bytes = 4 << 10;
  cpu.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return cpu;
}

}  // namespace

const char* isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::SSE4: return "sse4";
    case CpuIsa::AVX2: return "avx2";
    case CpuIsa::AVX512: return "avx512";
  }
  return "?";
}

std::optional<CpuIsa> parse_isa(const std::string& name) {
  for (CpuIsa isa : {CpuIsa::SSE4, CpuIsa::AVX2, CpuIsa::AVX512})
    if (name == isa_name(isa)) return isa;
  return std::nullopt;
}

int isa_vector_bits(CpuIsa isa) { return isa == CpuIsa::AVX512 ? 512 : isa == CpuIsa::AVX2 ? 256 : 128; }

int isa_vector_registers(CpuIsa isa) { return isa == CpuIsa::AVX512 ? 32 : 16; }

const CpuDescription& host_cpu() {
  static const CpuDescription cpu = detect_host_cpu();
  return cpu;
}

std::string host_cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
    break;
  }
  return model + " (" + isa_name(host_cpu().isa) + ")";
}

}  // namespace tessel
