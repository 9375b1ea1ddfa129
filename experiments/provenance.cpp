// Provenance of experiment results (experiments/provenance.h).
#include "experiments/provenance.h"

#include <sqlite3.h>
#include <xgboost/c_api.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#ifndef TESSEL_SOURCE_TREE
#define TESSEL_SOURCE_TREE "."
#endif
#ifndef TESSEL_YAML_CPP_VERSION
#define TESSEL_YAML_CPP_VERSION "unknown"
#endif

namespace tessel::experiments {

namespace {

// The first line a shell command prints, "" if it fails.
std::string first_line_of(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::array<char, 256> buffer{};
  std::string line = fgets(buffer.data(), buffer.size(), pipe) ? buffer.data() : "";
  bool ok = pclose(pipe) == 0;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return ok ? line : "";
}

}  // namespace

nlohmann::json git_state() {
  std::string git = std::string("git -C '") + TESSEL_SOURCE_TREE + "' ";
  std::string commit = first_line_of(git + "rev-parse HEAD 2>/dev/null");
  if (commit.empty()) return {{"commit", "unknown"}, {"dirty", nullptr}};
  bool dirty = !first_line_of(git + "status --porcelain --untracked-files=no 2>/dev/null").empty();
  return {{"commit", commit}, {"dirty", dirty}};
}

nlohmann::json library_versions() {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  return {{"sqlite", sqlite3_libversion()},
          {"xgboost", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)},
          {"yaml-cpp", TESSEL_YAML_CPP_VERSION},
          {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
          {"compiler", __VERSION__}};
}

nlohmann::json cpu_info() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return {{"model", model}, {"logical_cpus", std::thread::hardware_concurrency()}};
}

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace tessel::experiments
