// A compilation target: which back end generates the code and what the device it runs on offers.
// Lowering, back ends and operator schedules read the target instead of constants written for one
// machine (TVM's Target).
//
// A target is written as its kind (a back end's registry name) followed by attributes:
//   "llvm_cpu"                       the host CPU as it is (the default of every command)
//   "llvm_cpu -isa=avx2"             the host with its instruction set capped at AVX2
//   "llvm_cpu -isa=avx512 -threads=1"
//   "c_source -isa=avx2"
// CPU kinds (llvm_cpu, c_source) take -isa=sse4|avx2|avx512, -threads=N, -fma-units=N,
// -fma-latency=N, cache sizes -l1=, -l2=, -l3= (bytes, or with a K or M suffix), -prefetch=
// (bytes of weights the 1x1 kernels prefetch ahead, 0 for no direct-convolution prefetch at all;
// CpuDescription::prefetch_bytes) and
// -winograd-prefetch= (the same for the Winograd GEMM; CpuDescription::winograd_prefetch_bytes); what
// is not given is the host's. An -isa above the host's describes a CPU this machine cannot run: lowering
// and code emission accept it (cross-compilation), running and measuring refuse it
// (cannot_run_reason). Other kinds (GPUs, accelerators) register their attributes with
// add_target_kind.
//
//   Target t = Target::parse("llvm_cpu -isa=avx2");   // keep the Target: cpu() refers into it
//   t.cpu().lanes(32) == 8;  t.str() == "llvm_cpu -isa=avx2 -threads=2 ...";  t.key() == "llvm_cpu -isa=avx2"
#pragma once
#include <map>
#include <string>
#include <vector>

#include "target/cpu.h"

namespace tessel {

enum class DeviceKind : uint8_t { CPU, GPU, Accelerator };
const char* device_kind_name(DeviceKind kind);  // "cpu", "gpu", "accelerator"

// A kind of target other than the built-in CPU ones: its name, device and attributes with their
// defaults (every attribute of such a target is a string; the back end interprets it).
struct TargetKindInfo {
  std::string name;
  DeviceKind device = DeviceKind::GPU;
  std::string description;
  std::map<std::string, std::string> attribute_defaults;
};
// Registers a target kind; a second kind of the same name is an InternalError.
void add_target_kind(TargetKindInfo kind);
// Every kind's name (the CPU kinds first), for messages and listings.
std::vector<std::string> target_kind_names();

class Target {
 public:
  // The host CPU for the CPU kind `kind` (default llvm_cpu).
  static Target host(const std::string& kind = "llvm_cpu");
  // Parses a target string; throws UserError naming the unknown kind, attribute or bad value and
  // listing what is valid.
  static Target parse(const std::string& text);

  const std::string& kind() const { return kind_; }
  DeviceKind device() const { return device_; }
  bool is_cpu() const { return device_ == DeviceKind::CPU; }
  // The CPU description; InternalError unless is_cpu().
  const CpuDescription& cpu() const;
  // A non-CPU attribute's value (its default if not given); InternalError for an unknown name.
  const std::string& attribute(const std::string& name) const;

  // The same target with another worker-thread count (CPU kinds).
  Target with_threads(int threads) const;

  // Every attribute, canonical: parse(str()) == *this.
  std::string str() const;
  // What generated code depends on, for keying tuning records: the kind and, for CPUs, the ISA
  // level ("llvm_cpu -isa=avx2"). Cache sizes and thread counts change which schedule is fastest,
  // not whether a schedule's code runs, so a record tuned with 2 threads still applies to 1.
  std::string key() const;

  // Why this machine cannot run code for the target ("" when it can): a CPU ISA above the host's,
  // or a device this machine lacks.
  std::string cannot_run_reason() const;
  // Throws UserError with cannot_run_reason() and what to do, unless it is empty; `what` names the
  // command ("bench", "tune").
  void check_runs_here(const std::string& what) const;

  bool operator==(const Target& other) const { return str() == other.str(); }

 private:
  std::string kind_;
  DeviceKind device_ = DeviceKind::CPU;
  CpuDescription cpu_;
  std::map<std::string, std::string> attributes_;  // non-CPU kinds
};

}  // namespace tessel
