// The installed data folder, found from libtessel's location (support/install_paths.h).
#include "support/install_paths.h"

#include <dlfcn.h>

namespace tessel {

std::filesystem::path installed_data_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&installed_data_dir), &info) == 0 || !info.dli_fname) return {};
  std::error_code error;
  std::filesystem::path library = std::filesystem::canonical(info.dli_fname, error);
  if (error) return {};
  std::filesystem::path data = library.parent_path().parent_path() / "share" / "tessel";
  return std::filesystem::is_directory(data, error) ? data : std::filesystem::path();
}

}  // namespace tessel
