// The `--target` option every command that compiles shares (bench, lower, tune, experiment): one
// spelling, one default (the host) and one rule for how it combines with `--threads`.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "target/target.h"

namespace tessel::tools {

// Adds `--target TEXT` (target/target.h's syntax; default "llvm_cpu", the host) to a command.
void add_target_option(CLI::App* cmd, std::string& target);

// The target a command runs: `text` parsed, with the worker-thread count `threads` (the command's
// --threads) unless the target string sets -threads itself. Throws UserError for a bad target.
Target resolve_target(const std::string& text, int threads);

}  // namespace tessel::tools
