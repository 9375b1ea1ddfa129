// The installed data folder and helper programs, found from libtessel's location (support/install_paths.h).
#include "support/install_paths.h"

#include <dlfcn.h>

namespace tessel {

namespace {

// The folder libtessel.so was loaded from; empty if unknown.
std::filesystem::path library_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_dir), &info) == 0 || !info.dli_fname) return {};
  std::error_code error;
  std::filesystem::path library = std::filesystem::canonical(info.dli_fname, error);
  return error ? std::filesystem::path() : library.parent_path();
}

}  // namespace

std::filesystem::path installed_data_dir() {
  std::filesystem::path lib = library_dir();
  if (lib.empty()) return {};
  std::error_code error;
  std::filesystem::path data = lib.parent_path() / "share" / "tessel";
  return std::filesystem::is_directory(data, error) ? data : std::filesystem::path();
}

std::filesystem::path installed_program(const std::string& name) {
  std::filesystem::path lib = library_dir();
  if (lib.empty()) return {};
  for (const std::filesystem::path& candidate : {lib / name, lib.parent_path() / "bin" / name}) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate;
  }
  return {};
}

}  // namespace tessel
