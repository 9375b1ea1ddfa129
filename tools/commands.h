// Registration of the `tessel` subcommands other than bench (see tools/bench_command.h).
#pragma once
#include <CLI/CLI.hpp>

namespace tessel::tools {

// `tessel plugins [--json]`: every registered plugin with kind, description and parameters.
void add_plugins_command(CLI::App& app);

// `tessel lower <op> --shape ... [--schedule default|naive] [--emit loops|c|llvm|asm] [--target T]
// [--pass NAME[:k=v,...]] [--print-after NAME] [--print-after-all]`: prints the lowered loop program
// (or generated code) of an operator under a schedule, lowered for a target through its pipeline.
void add_lower_command(CLI::App& app);

// `tessel tune --workload W [--space S] [--strategy S] [--trials N] [--db FILE] [--json] ...`:
// auto-tunes one operator (tools/tune_command.cpp). argv (main's) is what it re-executes itself
// with, to rid OpenBLAS of the machine's presets before measuring the baseline.
void add_tune_command(CLI::App& app, int argc, char** argv);

// `tessel tune-model model.onnx --db FILE [--trials N] [--scheduler round_robin|gradient] ...`:
// tunes a model's tasks with one budget (tools/tune_model_command.cpp).
void add_tune_model_command(CLI::App& app);

// `tessel records list|best|export|import --db FILE`: the records database (tools/records_command.cpp).
void add_records_command(CLI::App& app);

// `tessel experiment run|record`: experiment configs and recorded sets (tools/experiment_command.cpp).
void add_experiment_command(CLI::App& app, int argc, char** argv);

// `tessel compile model.onnx -o out/ [--passes ...] [--records DB [--require-tuned]] [--target T] [--json]` and
// `tessel run out/ --input [NAME=]x.npy --output y.npy` (tools/model_commands.cpp).
void add_model_commands(CLI::App& app, char** argv);

// `tessel bench-model model.onnx [--torchscript m.pt] [--threads N] [--json]`: the compiled model
// against libtorch, alternating (tools/bench_model_command.cpp). argv is main's: the command
// re-executes itself in the benchmark environment (benchmarks/bench_environment.h).
void add_bench_model_command(CLI::App& app, char** argv);

}  // namespace tessel::tools
