// Host CPU detection and TargetMachine creation for the LLVM CPU back end.
#include "backends/llvm_cpu/host_target.h"

#include <mutex>

#include <llvm/ADT/StringMap.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/Function.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>

#include "support/error.h"

namespace tessel::llvm_cpu {
namespace {

void initialize_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

// A CPU model LLVM 14 knows whose scheduling and feature set fit an AVX-512 CPU it does not know.
std::string cpu_name_for(const std::string& host_cpu, const llvm::StringMap<bool>& has) {
  auto present = [&](const char* f) { auto it = has.find(f); return it != has.end() && it->second; };
  bool unknown = host_cpu == "generic" || host_cpu.rfind("znver", 0) == 0;
  if (!unknown || !present("avx512f")) return host_cpu;
  if (present("avx512vnni") && present("avx512vbmi2")) return "icelake-server";
  return "skylake-avx512";
}

HostTarget detect_host() {
  initialize_native_target();
  HostTarget t;
  t.triple = llvm::sys::getProcessTriple();
  llvm::StringMap<bool> has;
  llvm::sys::getHostCPUFeatures(has);
  std::string features;
  for (const auto& entry : has) {
    if (!features.empty()) features += ',';
    features += (entry.second ? "+" : "-") + entry.getKey().str();
  }
  t.features = features;
  t.cpu = cpu_name_for(llvm::sys::getHostCPUName().str(), has);
  auto present = [&](const char* f) { auto it = has.find(f); return it != has.end() && it->second; };
  t.vector_bits = present("avx512f") ? 512 : present("avx") ? 256 : 128;
  return t;
}

}  // namespace

const HostTarget& host_target() {
  static const HostTarget target = detect_host();
  return target;
}

llvm::orc::JITTargetMachineBuilder host_jit_target_builder() {
  const HostTarget& t = host_target();
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(t.triple)};
  builder.setCPU(t.cpu);
  builder.getFeatures().AddFeature(t.features);
  builder.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  builder.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return builder;
}

std::unique_ptr<llvm::TargetMachine> create_host_target_machine(bool pic) {
  llvm::orc::JITTargetMachineBuilder builder = host_jit_target_builder();
  if (pic) builder.setRelocationModel(llvm::Reloc::PIC_);
  auto tm = builder.createTargetMachine();
  if (!tm) throw InternalError("cannot create an LLVM target machine for the host: " + llvm::toString(tm.takeError()));
  return std::move(*tm);
}

void set_host_function_attributes(llvm::Function& fn) {
  const HostTarget& t = host_target();
  std::string width = std::to_string(t.vector_bits);
  fn.addFnAttr("target-cpu", t.cpu);
  fn.addFnAttr("target-features", t.features);
  fn.addFnAttr("prefer-vector-width", width);
  fn.addFnAttr("min-legal-vector-width", width);
  fn.addFnAttr(llvm::Attribute::NoUnwind);
}

}  // namespace tessel::llvm_cpu
