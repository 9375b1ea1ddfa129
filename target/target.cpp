// Target strings: parsing, printing and the registry of target kinds (target/target.h).
#include "target/target.h"

#include <algorithm>
#include <mutex>
#include <sstream>

#include "support/error.h"

namespace tessel {

namespace {

const std::vector<std::string> kCpuKinds = {"llvm_cpu", "c_source"};
const std::vector<std::string> kCpuAttributes = {"isa", "threads", "fma-units", "fma-latency",
                                                  "l1",  "l2",      "l3",        "prefetch", "winograd-prefetch"};

struct KindTable {
  std::mutex mutex;
  std::map<std::string, TargetKindInfo> kinds;
};

KindTable& kind_table() {
  static KindTable* table = new KindTable;  // never destroyed: plugins may register at exit
  return *table;
}

bool is_cpu_kind(const std::string& kind) {
  return std::find(kCpuKinds.begin(), kCpuKinds.end(), kind) != kCpuKinds.end();
}

std::string byte_size_text(int64_t bytes) {
  if (bytes == 0) return "0";
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes % (1 << 10) == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

// A positive integer attribute, optionally with a K or M suffix when `sizes` is set.
int64_t positive_value(const std::string& target, const std::string& name, const std::string& text, bool sizes) {
  size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string suffix = text.substr(used);
  if (sizes && suffix == "K") value <<= 10, suffix.clear();
  if (sizes && suffix == "M") value <<= 20, suffix.clear();
  if (used == 0 || !suffix.empty() || value <= 0 || value > (int64_t(1) << 40))
    user_error("target '", target, "': -", name, "=", text, " is not a positive ",
               sizes ? "size (bytes, or with a K or M suffix)" : "integer");
  return value;
}

void set_cpu_attribute(CpuDescription& cpu, const std::string& target, const std::string& name,
                       const std::string& value) {
  if (name == "isa") {
    std::optional<CpuIsa> isa = parse_isa(value);
    if (!isa) user_error("target '", target, "': unknown -isa=", value, "; valid: sse4, avx2, avx512");
    cpu.isa = *isa;
    cpu.vector_bits = isa_vector_bits(*isa);
    cpu.vector_registers = isa_vector_registers(*isa);
    if (*isa == CpuIsa::SSE4) cpu.fma_units = 1;
  } else if (name == "threads") {
    cpu.threads = static_cast<int>(std::min<int64_t>(positive_value(target, name, value, false), 1024));
  } else if (name == "fma-units") {
    cpu.fma_units = static_cast<int>(std::min<int64_t>(positive_value(target, name, value, false), 8));
  } else if (name == "fma-latency") {
    cpu.fma_latency = static_cast<int>(std::min<int64_t>(positive_value(target, name, value, false), 64));
  } else if (name == "l1" || name == "l2" || name == "l3") {
    int64_t bytes = positive_value(target, name, value, true);
    (name == "l1" ? cpu.l1d_bytes : name == "l2" ? cpu.l2_bytes : cpu.l3_bytes) = bytes;
  } else if (name == "prefetch" || name == "winograd-prefetch") {
    int64_t bytes = value == "0" ? 0 : positive_value(target, name, value, true);
    (name == "prefetch" ? cpu.prefetch_bytes : cpu.winograd_prefetch_bytes) = bytes;
  } else {
    user_error("target '", target, "': unknown attribute -", name, " for a CPU target; valid: -",
               join_list(kCpuAttributes));
  }
}

// "kind -a=1 -b=2" -> kind and the attributes in order; an attribute must be "-name=value".
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_target(const std::string& text) {
  std::istringstream in(text);
  std::string kind, word;
  in >> kind;
  std::vector<std::pair<std::string, std::string>> attributes;
  while (in >> word) {
    size_t eq = word.find('=');
    if (word.size() < 2 || word[0] != '-' || eq == std::string::npos || eq == 1 || eq + 1 == word.size())
      user_error("target '", text, "': '", word, "' is not an attribute; write -name=value, e.g. llvm_cpu -isa=avx2");
    size_t start = word[1] == '-' ? 2 : 1;  // --isa=avx2 is accepted too
    attributes.emplace_back(word.substr(start, eq - start), word.substr(eq + 1));
  }
  return {kind, attributes};
}

}  // namespace

const char* device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::CPU: return "cpu";
    case DeviceKind::GPU: return "gpu";
    case DeviceKind::Accelerator: return "accelerator";
  }
  return "?";
}

void add_target_kind(TargetKindInfo kind) {
  KindTable& table = kind_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  TESSEL_CHECK(!is_cpu_kind(kind.name) && !table.kinds.count(kind.name), "target kind '", kind.name,
               "' is registered twice");
  table.kinds[kind.name] = std::move(kind);
}

std::vector<std::string> target_kind_names() {
  std::vector<std::string> names = kCpuKinds;
  KindTable& table = kind_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  for (const auto& [name, info] : table.kinds) names.push_back(name);
  return names;
}

Target Target::host(const std::string& kind) {
  TESSEL_CHECK(is_cpu_kind(kind), "Target::host needs a CPU kind, not '", kind, "'");
  Target t;
  t.kind_ = kind;
  t.cpu_ = host_cpu();
  return t;
}

Target Target::parse(const std::string& text) {
  auto [kind, attributes] = split_target(text);
  if (kind.empty()) user_error("empty target; write a kind and attributes, e.g. llvm_cpu -isa=avx2");
  if (is_cpu_kind(kind)) {
    Target t = host(kind);
    for (const auto& [name, value] : attributes) set_cpu_attribute(t.cpu_, text, name, value);
    return t;
  }
  std::optional<TargetKindInfo> found;
  {
    KindTable& table = kind_table();
    std::lock_guard<std::mutex> lock(table.mutex);
    auto it = table.kinds.find(kind);
    if (it != table.kinds.end()) found = it->second;
  }
  if (!found) user_error("unknown target kind '", kind, "'; valid: ", join_list(target_kind_names()));
  const TargetKindInfo& info = *found;
  Target t;
  t.kind_ = kind;
  t.device_ = info.device;
  t.attributes_ = info.attribute_defaults;
  for (const auto& [name, value] : attributes) {
    if (!t.attributes_.count(name)) {
      std::vector<std::string> valid;
      for (const auto& [key, unused] : info.attribute_defaults) valid.push_back("-" + key);
      user_error("target '", text, "': unknown attribute -", name, " for kind ", kind, "; valid: ",
                 valid.empty() ? "none" : join_list(valid));
    }
    t.attributes_[name] = value;
  }
  return t;
}

const CpuDescription& Target::cpu() const {
  TESSEL_CHECK(is_cpu(), "target '", kind_, "' is not a CPU target");
  return cpu_;
}

const std::string& Target::attribute(const std::string& name) const {
  auto it = attributes_.find(name);
  TESSEL_CHECK(it != attributes_.end(), "target '", kind_, "' has no attribute '", name, "'");
  return it->second;
}

Target Target::with_threads(int threads) const {
  TESSEL_CHECK(is_cpu() && threads >= 1, "with_threads needs a CPU target and a positive count");
  Target t = *this;
  t.cpu_.threads = threads;
  return t;
}

std::string Target::str() const {
  std::string out = kind_;
  if (is_cpu()) {
    out += std::string(" -isa=") + isa_name(cpu_.isa) + " -threads=" + std::to_string(cpu_.threads) +
           " -fma-units=" + std::to_string(cpu_.fma_units) + " -fma-latency=" + std::to_string(cpu_.fma_latency) +
           " -l1=" + byte_size_text(cpu_.l1d_bytes) + " -l2=" + byte_size_text(cpu_.l2_bytes) +
           " -l3=" + byte_size_text(cpu_.l3_bytes) + " -prefetch=" + byte_size_text(cpu_.prefetch_bytes) +
           " -winograd-prefetch=" + byte_size_text(cpu_.winograd_prefetch_bytes);
  }
  for (const auto& [name, value] : attributes_) out += " -" + name + "=" + value;
  return out;
}

std::string Target::key() const {
  if (is_cpu()) return kind_ + " -isa=" + isa_name(cpu_.isa);
  return str();
}

std::string Target::cannot_run_reason() const {
  if (!is_cpu()) return std::string("this machine has no ") + device_kind_name(device_) + " of kind " + kind_;
  if (cpu_.isa > host_cpu().isa)
    return std::string("the target needs ") + isa_name(cpu_.isa) + " but this CPU, " + host_cpu_name() +
           ", has only " + isa_name(host_cpu().isa);
  return "";
}

void Target::check_runs_here(const std::string& what) const {
  std::string reason = cannot_run_reason();
  if (reason.empty()) return;
  if (!is_cpu()) user_error(what, " cannot run target '", key(), "': ", reason);
  user_error(what, " cannot run target '", key(), "': ", reason, "; choose -isa=", isa_name(host_cpu().isa),
             " or lower (tessel lower --target ...) to cross-compile without running");
}

}  // namespace tessel
