// `tessel bench`: Tessel against the vendor baselines, measured in the same process.
//   tessel bench gemm      --n N | --shape M,N,K                      (against OpenBLAS sgemm)
//   tessel bench conv2d    --workload C1..C12|all | --shape N,C,H,W,OC,K,S,P   (against oneDNN)
//   tessel bench depthwise --workload D1..D9|all | --shape N,C,H,W,K,S,P       (against oneDNN)
// with --json (one object per case), --threads N (both sides, default 2), --repeats R and --tuned DB
// (Tessel runs the best configuration a tuning database holds for each workload).
#pragma once
#include <CLI/CLI.hpp>

namespace tessel::tools {

// Registers `bench` and its subcommands. argv (main's, unchanged) is what the command re-executes
// itself with, to rid OpenBLAS of the machine's presets before measuring.
void add_bench_command(CLI::App& app, int argc, char** argv);

}  // namespace tessel::tools
