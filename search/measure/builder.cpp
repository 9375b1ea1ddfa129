// Parallel building of candidates into exported modules (search/measure/builder.h).
#include "search/measure/builder.h"

#include <chrono>
#include <thread>

#include "support/error.h"

namespace tessel::search {

Builder::Builder(const Task& task, std::unique_ptr<Backend> backend, int threads)
    : task_(task), backend_(std::move(backend)), threads_(threads), dir_("tessel-build-") {
  if (threads_ < 1) user_error("measure: compile threads must be >= 1, got ", threads_);
}

BuildResult Builder::build_one(const Candidate& candidate) const {
  auto start = std::chrono::steady_clock::now();
  BuildResult result;
  try {
    Program program = task_.program(candidate);
    std::string name = "candidate";
    Module module = backend_->build({BuildInput::from_schedule(program.schedule, program.args(), name)});
    std::string library = (dir_.path() / ("candidate" + std::to_string(serial_.fetch_add(1)) + ".so")).string();
    module.export_library(library);
    result.artifact = {library, name};
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  result.compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<BuildResult> Builder::build(const std::vector<Candidate>& candidates) const {
  std::vector<BuildResult> built(candidates.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < candidates.size();) built[i] = build_one(candidates[i]);
  };
  std::vector<std::thread> workers;
  size_t count = std::min<size_t>(threads_, candidates.size());
  for (size_t w = 1; w < count; ++w) workers.emplace_back(work);
  work();  // the calling thread builds too
  for (std::thread& t : workers) t.join();
  return built;
}

void Builder::discard(const std::vector<BuildResult>& built) const {
  for (const BuildResult& b : built)
    if (b.ok()) {
      std::error_code ignored;
      std::filesystem::remove(b.artifact.library, ignored);
    }
}

}  // namespace tessel::search
