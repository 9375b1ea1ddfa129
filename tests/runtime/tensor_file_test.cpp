// Tensor files: arrays of every element type round-trip through a file and through a memfd, the
// mapped arrays are private copies-on-write of the file, and damaged files are refused by name.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backends/system_tools.h"
#include "runtime/tensor_file.h"
#include "tests/user_error_check.h"

using namespace tessel;

namespace {

std::vector<NamedArray> sample_arrays() {
  return {{"weights", NDArray::random_uniform({3, 7}, ElementType::of<float>(), 1)},
          {"scalar", NDArray::from_vector<double>({}, {2.5})},
          {"ids", NDArray::random_uniform({5}, ElementType::of<int64_t>(), 2, -100, 100)},
          {"mask", NDArray::random_uniform({9}, ElementType::of<bool>(), 3)},
          {"empty", NDArray::zeros({0, 4}, ElementType::of<int8_t>())}};
}

void check_same(const std::vector<NamedArray>& a, const std::vector<NamedArray>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].name);
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].array.shape() == b[i].array.shape());
    CHECK(a[i].array.dtype() == b[i].array.dtype());
    CHECK(reinterpret_cast<uintptr_t>(b[i].array.data()) % NDArray::kAlignment == 0);
    if (a[i].array.numel() > 0) CHECK(max_abs_diff(a[i].array, b[i].array) == 0.0);
  }
}

}  // namespace

TEST_CASE("tensor files: arrays round-trip through a file and a memfd", "[runtime][tensor_file]") {
  TempDir dir("tessel-tensor-test-");
  std::string path = (dir.path() / "params.bin").string();
  std::vector<NamedArray> arrays = sample_arrays();
  save_tensors(path, arrays);
  std::vector<NamedArray> loaded = load_tensors(path);
  check_same(arrays, loaded);

  // Writes to a mapped array stay in this process.
  loaded[0].array.data_as<float>()[0] = 1234.0f;
  CHECK(load_tensors(path)[0].array.data_as<float>()[0] == arrays[0].array.data_as<float>()[0]);

  int fd = memfd_create("tensor-test", MFD_CLOEXEC);
  REQUIRE(fd >= 0);
  write_tensors(fd, arrays, "the test memfd");
  check_same(arrays, map_tensors(fd, "the test memfd"));
  close(fd);
  save_tensors(path, {});
  CHECK(load_tensors(path).empty());
}

TEST_CASE("tensor files: damaged or foreign files are refused by name", "[runtime][tensor_file]") {
  TempDir dir("tessel-tensor-test-");
  std::string path = (dir.path() / "t.bin").string();
  test::require_user_error([&] { load_tensors(path); }, {"cannot open", "t.bin"});
  std::ofstream(path) << "definitely not tensors";
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "not a valid Tessel tensor file"});
  save_tensors(path, sample_arrays());
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "does not fit"});
  test::require_user_error([&] { save_tensors((dir.path() / "missing/t.bin").string(), sample_arrays()); }, "missing/t.bin");
  // Headers whose fields have other types or impossible values (the reader is fuzzed:
  // fuzz/tensor_file_fuzzer.cpp).
  auto with_header = [&](const std::string& header) {
    std::string bytes = "TSLTENS1";
    for (int i = 0; i < 8; ++i) bytes += static_cast<char>(uint64_t(header.size()) >> (8 * i));
    bytes += header;
    bytes.resize(256, '\0');
    std::ofstream(path, std::ios::binary) << bytes;
  };
  auto tensor = [](const std::string& shape, const std::string& offset) {
    return "{\"format\": \"tessel-tensors\", \"version\": 1, \"tensors\": [{\"name\": \"w\", \"dtype\": \"float32\", "
           "\"shape\": " + shape + ", \"offset\": " + offset + ", \"nbytes\": 8}]}";
  };
  with_header(tensor("[2]", "128"));
  CHECK(load_tensors(path).at(0).array.shape() == std::vector<int64_t>{2});
  with_header("{\"format\": 5, \"version\": 1, \"tensors\": []}");
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "malformed header"});
  with_header("{\"format\": \"tessel-tensors\", \"version\": \"1\", \"tensors\": []}");
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "version \"1\""});
  with_header(tensor("[2]", "1e300"));
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "not integers"});
  with_header(tensor("[2]", "-64"));
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "does not fit"});
  with_header(tensor("[4294967296, 4294967296]", "128"));
  test::require_user_error([&] { load_tensors(path); }, {"t.bin", "bad shape of w"});
}
