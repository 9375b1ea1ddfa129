// `tessel compile` and `tessel run`: an ONNX model compiled into a deployable module folder
// (compiler/compile_model.h: kernels.so, graph.json, params.bin; with --records the groups run
// their tuned configurations, compiler/group_schedule.h), and a module folder run on
// NumPy inputs by the runtime's graph executor (runtime/graph_executor.h).
#include <iostream>
#include <optional>

#include "compiler/compile_model.h"
#include "frontends/numpy/npy.h"
#include "frontends/onnx/onnx_importer.h"
#include "support/error.h"
#include "tools/commands.h"
#include "tools/target_option.h"

namespace tessel::tools {

namespace {

struct CompileArgs {
  std::string model, out, passes, target = "llvm_cpu", records;
  bool json = false, require_tuned = false;
};

void compile(const CompileArgs& a) {
  Target target = Target::parse(a.target);
  graph::OptimizedGraph opt =
      graph::optimize_graph(frontend::import_onnx(a.model), graph::parse_pipeline(a.passes), target);
  std::optional<search::TunedRecords> records;
  if (!a.records.empty()) records = search::TunedRecords::read(a.records);
  CompiledModel model = compile_model(opt, target, {records ? &*records : nullptr, a.require_tuned});
  export_model(model, a.out);
  if (a.json) {
    nlohmann::json summary = {{"model", a.model},
                              {"out", a.out},
                              {"passes", opt.passes_run},
                              {"kernels", model.module.info().functions.size()},
                              {"kernel_calls", model.graph["nodes"].size()},
                              {"planned_activation_bytes", model.planned_bytes},
                              {"intermediate_bytes", model.intermediate_bytes},
                              {"compile_seconds", model.compile_seconds}};
    summary["groups"] = nlohmann::json::array();
    for (const auto& node : model.graph["nodes"])
      summary["groups"].push_back(
          {{"kernel", node["kernel"]}, {"ops", node["ops"]}, {"schedule", node["schedule"]}, {"tuning", node["tuning"]}});
    std::cout << summary.dump() << "\n";
    return;
  }
  for (const std::string& line : opt.report) std::cout << "pass " << line << "\n";
  for (const auto& node : model.graph["nodes"]) {
    std::string ops;
    for (const auto& op : node["ops"]) ops += (ops.empty() ? "" : "+") + op.get<std::string>();
    std::cout << node["kernel"].get<std::string>() << "  " << ops << "  schedule: " << node["schedule"].get<std::string>();
    std::string prefetched;
    for (const auto& name : node.value("prefetches", nlohmann::json::array()))
      prefetched += (prefetched.empty() ? "" : ", ") + name.get<std::string>();
    if (!prefetched.empty()) std::cout << "  prefetches: " << prefetched;
    std::cout << "\n";
  }
  std::cout << "planned activation memory: " << model.planned_bytes << " bytes (" << model.intermediate_bytes
            << " bytes of intermediate tensors without reuse)\n"
            << model.module.info().functions.size() << " kernels compiled in " << model.compile_seconds << " s; wrote "
            << a.out << "/{kernels.so, graph.json, params.bin}\n";
}

struct RunArgs {
  std::string folder;
  std::vector<std::string> inputs, outputs;
};

void run_module(const RunArgs& a) {
  GraphExecutor exec = GraphExecutor::load(a.folder);
  std::map<std::string, NDArray> inputs;
  for (const std::string& given : a.inputs) {
    size_t eq = given.find('=');
    std::string name = eq == std::string::npos ? "" : given.substr(0, eq);
    if (name.empty()) {
      if (exec.num_inputs() != 1)
        user_error("--input ", given, ": the model has ", exec.num_inputs(), " inputs; write --input NAME=FILE.npy");
      name = exec.input_name(0);
    }
    inputs[name] = frontend::read_npy(eq == std::string::npos ? given : given.substr(eq + 1));
  }
  std::vector<NDArray> out = exec.run(inputs);
  if (a.outputs.size() > out.size())
    user_error("--output: the model has ", out.size(), " outputs; ", a.outputs.size(), " files were given");
  for (size_t i = 0; i < a.outputs.size(); ++i) frontend::write_npy(a.outputs[i], out[i]);
  for (size_t i = 0; i < out.size(); ++i)
    std::cout << exec.output_name(i) << ": " << out[i].dtype().str() << shape_str(out[i].shape())
              << (i < a.outputs.size() ? " -> " + a.outputs[i] : "") << "\n";
}

}  // namespace

void add_model_commands(CLI::App& app, char** argv) {
  auto compile_args = std::make_shared<CompileArgs>();
  auto* c = app.add_subcommand("compile", "compile an ONNX model into a deployable module folder");
  c->add_option("model", compile_args->model, "the ONNX model")->required();
  c->add_option("-o,--out", compile_args->out, "the module folder to write")->required();
  c->add_option("--passes", compile_args->passes,
                "graph passes: -NAME switches one off (-fuse,-cse), a list of names runs those (see tessel plugins)");
  c->add_flag("--json", compile_args->json, "print one JSON line: kernels, groups, schedules, memory");
  auto* records = c->add_option("--records", compile_args->records,
                                "records database whose tuned configurations the groups run (exact workload, else "
                                "the nearest shape that fits, else the default)");
  c->add_flag("--require-tuned", compile_args->require_tuned,
              "a group whose anchor operator has a workload but no record is an error")
      ->needs(records);
  add_target_option(c, compile_args->target);
  c->callback([compile_args] { compile(*compile_args); });

  auto run_args = std::make_shared<RunArgs>();
  auto* r = app.add_subcommand("run", "run a compiled module folder on .npy inputs");
  r->add_option("folder", run_args->folder, "the module folder (tessel compile -o)")->required();
  r->add_option("--input", run_args->inputs, "NAME=FILE.npy, or FILE.npy for a single-input model (repeatable)");
  r->add_option("--output", run_args->outputs, "FILE.npy for each output, in order (repeatable)");
  r->callback([run_args] { run_module(*run_args); });
  add_bench_model_command(app, argv);
}

}  // namespace tessel::tools
