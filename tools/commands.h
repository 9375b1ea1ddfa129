// Registration of the `tessel` subcommands other than bench (see tools/bench_command.h).
#pragma once
#include <CLI/CLI.hpp>

namespace tessel::tools {

// `tessel plugins [--json]`: every registered plugin with kind, description and parameters.
void add_plugins_command(CLI::App& app);

// `tessel lower <op> --shape ... [--schedule default|naive] [--emit loops|c|llvm|asm]`: prints
// the lowered loop program (or generated code) of an operator under a schedule.
void add_lower_command(CLI::App& app);

}  // namespace tessel::tools
