// The graph executor of module folders (runtime/graph_executor.h).
#include "runtime/graph_executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/host_memory.h"
#include "runtime/packed_params.h"
#include "support/error.h"
#include "support/json_integers.h"

namespace tessel {

GraphExecutor::GraphExecutor(Module module, const nlohmann::json& graph, std::vector<NamedArray> params,
                             const std::string& what)
    : module_(std::move(module)),
      params_(huge_pages_enabled() ? packed_params(params) : std::move(params)) {
  try {
    if (graph.at("format") != "tessel-graph" || graph.at("version") != 1)
      user_error(what, ": not a Tessel graph of version 1");
    std::optional<std::vector<int64_t>> sizes = json_integers(graph.at("storages"));
    if (!sizes) user_error(what, ": \"storages\" is not a list of sizes in bytes");
    for (int64_t bytes : *sizes) {
      if (bytes < 0) user_error(what, ": a storage has a negative size");
      storage_.push_back(NDArray::empty({bytes}, ElementType::of<uint8_t>()));
    }
    auto storage = [&](const nlohmann::json& ref, int64_t bytes, const std::string& where) -> void* {
      if (ref.contains("param")) {
        std::string name = ref.at("param");
        for (NamedArray& p : params_)
          if (p.name == name) {
            if (static_cast<int64_t>(p.array.nbytes()) != bytes)
              user_error(what, ": ", where, " reads param '", name, "' of ", p.array.nbytes(), " bytes, not ", bytes);
            return p.array.data();
          }
        user_error(what, ": ", where, " reads param '", name, "', which params.bin does not hold");
      }
      std::optional<int64_t> id = json_integer(ref.at("storage"));
      if (!id || *id < 0 || *id >= static_cast<int64_t>(storage_.size()) ||
          static_cast<int64_t>(storage_[*id].nbytes()) < bytes)
        user_error(what, ": ", where, " uses storage ", ref.at("storage").dump(), ", which is missing or too small");
      return storage_[*id].data();
    };
    auto ports = [&](const nlohmann::json& list, std::vector<Port>& out, const char* kind) {
      for (const nlohmann::json& p : list) {
        Port port{p.at("name"), ElementType::parse(p.at("dtype")), {}};
        std::string where = std::string(kind) + " '" + port.name + "'";
        std::optional<std::vector<int64_t>> shape = json_integers(p.at("shape"));
        if (!shape) user_error(what, ": ", where, " has a shape that is not integers");
        port.shape = *shape;
        port.data = storage(p, NDArray::checked_nbytes(port.shape, port.dtype, what + ": " + where + ":"), where);
        out.push_back(port);
      }
    };
    ports(graph.at("inputs"), inputs_, "input");
    ports(graph.at("outputs"), outputs_, "output");
    for (const nlohmann::json& node : graph.at("nodes")) {
      std::string name = node.at("kernel");
      Call call{module_.function(name), {}};
      const std::vector<ArgInfo>& declared = call.kernel.info().args;
      const nlohmann::json& args = node.at("args");
      if (args.size() != declared.size())
        user_error(what, ": kernel '", name, "' takes ", declared.size(), " arguments; the graph gives ", args.size());
      for (size_t i = 0; i < args.size(); ++i)
        call.args.push_back(storage(args[i], NDArray::checked_nbytes(declared[i].shape, declared[i].dtype),
                                    "kernel '" + name + "'"));
      calls_.push_back(std::move(call));
    }
  } catch (const nlohmann::json::exception& e) {
    user_error(what, ": malformed graph: ", e.what());
  }
}

GraphExecutor GraphExecutor::load(const std::string& folder) {
  std::string graph_path = folder + "/graph.json";
  std::ifstream in(graph_path);
  if (!in) user_error("cannot read '", graph_path, "': is '", folder, "' a module folder written by tessel compile?");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json graph = nlohmann::json::parse(text.str(), nullptr, false);
  if (graph.is_discarded()) user_error(graph_path, ": not valid JSON");
  return GraphExecutor(load_module(folder + "/kernels.so"), graph, load_tensors(folder + "/params.bin"), graph_path);
}

void GraphExecutor::set_input(const std::string& name, const NDArray& value) {
  for (const Port& p : inputs_) {
    if (p.name != name) continue;
    value.check_matches(p.shape, p.dtype, "input '" + name + "'");
    std::memcpy(p.data, value.data(), value.nbytes());
    return;
  }
  std::vector<std::string> names;
  for (const Port& p : inputs_) names.push_back(p.name);
  user_error("the model has no input named '", name, "'; its inputs are ", join_list(names));
}

void GraphExecutor::run() {
  for (const Call& call : calls_) call.kernel.call(call.args.data());
}

std::vector<double> GraphExecutor::profile_calls(int repeats) {
  if (repeats < 1) user_error("profiling takes at least one run; ", repeats, " were asked for");
  std::vector<std::vector<double>> times(calls_.size());
  for (int r = 0; r < repeats; ++r) {
    for (size_t i = 0; i < calls_.size(); ++i) {
      auto start = std::chrono::steady_clock::now();
      calls_[i].kernel.call(calls_[i].args.data());
      times[i].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::vector<double> medians;
  for (std::vector<double>& t : times) {
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    medians.push_back(t[t.size() / 2]);
  }
  return medians;
}

NDArray GraphExecutor::output(size_t i) const {
  if (i >= outputs_.size()) user_error("the model has ", outputs_.size(), " outputs; there is no output ", i);
  const Port& p = outputs_[i];
  NDArray out = NDArray::empty(p.shape, p.dtype);
  std::memcpy(out.data(), p.data, out.nbytes());
  return out;
}

std::vector<NDArray> GraphExecutor::run(const std::map<std::string, NDArray>& inputs) {
  for (const auto& [name, value] : inputs) set_input(name, value);
  for (const Port& p : inputs_)
    if (!inputs.count(p.name)) user_error("no array was given for the model input '", p.name, "'");
  run();
  std::vector<NDArray> out;
  for (size_t i = 0; i < outputs_.size(); ++i) out.push_back(output(i));
  return out;
}

}  // namespace tessel
