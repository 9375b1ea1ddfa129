// The shared --target option (tools/target_option.h).
#include "tools/target_option.h"

namespace tessel::tools {

void add_target_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--target", target,
                  "target: kind and attributes, e.g. \"llvm_cpu -isa=avx2\" (an ISA ceiling); default: the host")
      ->capture_default_str();
}

Target resolve_target(const std::string& text, int threads) {
  Target target = Target::parse(text);
  bool sets_threads = text.find("-threads=") != std::string::npos;
  return target.is_cpu() && !sets_threads ? target.with_threads(threads) : target;
}

}  // namespace tessel::tools
