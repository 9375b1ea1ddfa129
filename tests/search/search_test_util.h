// Helpers shared by the search tests: a scratch directory removed at the end of a test, and the
// small workloads whose whole template spaces compile quickly.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tessel::test {

// A fresh directory under the system temp dir, deleted with everything in it on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tessel-search-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// gemm 4×8×2: 144 configurations for AVX-512 targets, 336 for AVX2 (more panel widths, partial
// register tiles).
inline const char* kTinyGemm = "gemm:4,8,2";

}  // namespace tessel::test
