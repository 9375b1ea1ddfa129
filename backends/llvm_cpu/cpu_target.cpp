// CPU targets for LLVM: features capped or raised to the target's ISA level (cpu_target.h).
#include "backends/llvm_cpu/cpu_target.h"

#include <mutex>
#include <string>

#include <llvm/ADT/StringMap.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/Function.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include "support/error.h"

namespace llvm {
extern cl::opt<unsigned> PartialUnrollingThreshold;  // llvm/CodeGen/BasicTTIImpl.h
}

namespace tessel::llvm_cpu {
namespace {

// How large a loop LLVM may partially unroll, in micro-ops, for every CPU model: that of
// icelake-server, the model the schedules were measured with. LLVM takes it from the CPU model's
// loop buffer (50 for icelake-server, 512 for znver3), so the same schedule unrolled differently
// per CPU: for znver3 the input-channel loop around a 6 x 2-vector AVX2 conv2d tile was unrolled
// twice and the interleaved copies spilled (C1, C3, C10, C12), the reason AVX2 tiles had been kept
// to 4 columns. Schedules decide how their loop nests unroll; LLVM's share is the same everywhere.
constexpr unsigned kPartialUnrollMicroOps = 50;

void initialize_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    llvm::PartialUnrollingThreshold.addOccurrence(0, "partial-unrolling-threshold",
                                                  std::to_string(kPartialUnrollMicroOps));
  });
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Whether an LLVM feature belongs to an ISA level above `isa` (and must be off under that ceiling).
bool above_level(const std::string& feature, CpuIsa isa) {
  if (isa >= CpuIsa::AVX512) return false;
  if (starts_with(feature, "avx512") || starts_with(feature, "amx") || feature == "evex512") return true;
  if (isa >= CpuIsa::AVX2) return false;
  return starts_with(feature, "avx") || starts_with(feature, "fma") || feature == "f16c" || feature == "vaes" ||
         feature == "vpclmulqdq";
}

// A CPU model LLVM 14 knows whose scheduling and feature set fit an AVX-512 CPU it does not know.
std::string cpu_name_for(const std::string& host_cpu, const llvm::StringMap<bool>& has) {
  auto present = [&](const char* f) { auto it = has.find(f); return it != has.end() && it->second; };
  bool unknown = host_cpu == "generic" || host_cpu.rfind("znver", 0) == 0;
  if (!unknown || !present("avx512f")) return host_cpu;
  if (present("avx512vnni") && present("avx512vbmi2")) return "icelake-server";
  return "skylake-avx512";
}

// The host's CPU name and features with everything above the target's ISA level turned off.
LlvmCpuTarget capped_host(CpuIsa isa) {
  llvm::StringMap<bool> has;
  llvm::sys::getHostCPUFeatures(has);
  LlvmCpuTarget t;
  for (const auto& entry : has) {
    std::string name = entry.getKey().str();
    bool on = entry.second && !above_level(name, isa);
    t.features += (t.features.empty() ? "" : ",") + std::string(on ? "+" : "-") + name;
  }
  t.cpu = cpu_name_for(llvm::sys::getHostCPUName().str(), has);
  return t;
}

// A representative CPU of an ISA level the host does not reach (cross-compilation).
LlvmCpuTarget representative(CpuIsa isa) {
  LlvmCpuTarget t;
  t.cpu = isa == CpuIsa::AVX512 ? "skylake-avx512" : isa == CpuIsa::AVX2 ? "haswell" : "nehalem";
  return t;
}

}  // namespace

LlvmCpuTarget llvm_target_for(const Target& target) {
  initialize_native_target();
  CpuIsa isa = target.cpu().isa;
  LlvmCpuTarget t = isa <= host_cpu().isa ? capped_host(isa) : representative(isa);
  t.triple = llvm::sys::getProcessTriple();
  t.vector_bits = isa_vector_bits(isa);
  return t;
}

llvm::orc::JITTargetMachineBuilder jit_target_builder(const LlvmCpuTarget& t) {
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(t.triple)};
  builder.setCPU(t.cpu);
  if (!t.features.empty()) builder.getFeatures().AddFeature(t.features);
  builder.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  builder.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return builder;
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(const LlvmCpuTarget& t, bool pic) {
  llvm::orc::JITTargetMachineBuilder builder = jit_target_builder(t);
  if (pic) builder.setRelocationModel(llvm::Reloc::PIC_);
  auto tm = builder.createTargetMachine();
  if (!tm) throw InternalError("cannot create an LLVM target machine for " + t.cpu + ": " + llvm::toString(tm.takeError()));
  return std::move(*tm);
}

void set_function_attributes(llvm::Function& fn, const LlvmCpuTarget& t) {
  std::string width = std::to_string(t.vector_bits);
  fn.addFnAttr("target-cpu", t.cpu);
  if (!t.features.empty()) fn.addFnAttr("target-features", t.features);
  fn.addFnAttr("prefer-vector-width", width);
  fn.addFnAttr("min-legal-vector-width", width);
  fn.addFnAttr(llvm::Attribute::NoUnwind);
}

}  // namespace tessel::llvm_cpu
