// CPU descriptions and host detection (target/cpu.h).
#include "target/cpu.h"

#include <algorithm>
#include <cctype>
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

// Fills the cache sizes the kernel reports for cpu0; leaves the defaults where it says nothing
// (some virtual machines expose no cache topology).
void read_host_caches(CpuDescription& cpu) {
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    int64_t size = parse_cache_size(read_line(dir + "size"));
    if (level.empty() || size == 0 || type == "Instruction") continue;
    if (level == "1") cpu.l1d_bytes = size;
    if (level == "2") cpu.l2_bytes = size;
    if (level == "3") cpu.l3_bytes = size;
  }
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
