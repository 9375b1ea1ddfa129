// .npy files: round trips of every element type written, the files NumPy wrote for the models,
// and refusals of what is not a readable .npy file.
#include "frontends/numpy/npy.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/user_error_check.h"

using namespace tessel;
using namespace tessel::frontend;

namespace {
std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tessel_npy_test_" + name)).string();
}
}  // namespace

TEST_CASE("npy: arrays round-trip", "[npy]") {
  std::vector<NDArray> arrays{NDArray::random_uniform({2, 3, 4}, ElementType::of<float>(), 1),
                              NDArray::random_uniform({5}, ElementType::of<int64_t>(), 2, -100, 100),
                              NDArray::random_uniform({3, 1}, ElementType::of<int32_t>(), 3, -9, 9),
                              NDArray::random_uniform({4}, ElementType::of<bool>(), 4),
                              NDArray::from_vector<float>({}, {2.5f})};
  for (const NDArray& a : arrays) {
    INFO(a.dtype().str() << shape_str(a.shape()));
    write_npy(temp("round.npy"), a);
    NDArray b = read_npy(temp("round.npy"));
    CHECK(b.shape() == a.shape());
    CHECK(b.dtype() == a.dtype());
    CHECK(max_abs_diff(a, b) == 0);
  }
}

TEST_CASE("npy: reads what NumPy wrote", "[npy]") {
  NDArray x = read_npy(std::string(TESSEL_BINARY_DIR) + "/models/resnet18.input.npy");
  CHECK(x.shape() == std::vector<int64_t>{1, 3, 224, 224});
  CHECK(x.dtype() == ElementType::of<float>());
  NDArray tokens = read_npy(std::string(TESSEL_BINARY_DIR) + "/models/lstm_lm.input.npy");
  CHECK(tokens.dtype() == ElementType::of<int64_t>());
}

TEST_CASE("npy: refuses what it cannot read", "[npy][errors]") {
  test::require_user_error([] { read_npy("/nonexistent.npy"); }, {"cannot read '/nonexistent.npy'"});
  std::ofstream(temp("text.npy")) << "hello";
  test::require_user_error([] { read_npy(temp("text.npy")); }, {"not a .npy file"});
  write_npy(temp("cut.npy"), NDArray::zeros({10, 10}, ElementType::of<float>()));
  std::filesystem::resize_file(temp("cut.npy"), 200);
  test::require_user_error([] { read_npy(temp("cut.npy")); }, {"truncated", "[10, 10]"});
  auto header_file = [](const std::string& name, const std::string& dict) {
    std::ofstream out(temp(name), std::ios::binary);
    std::string header = dict + std::string(118 - dict.size(), ' ') + "\n";
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(static_cast<char>(header.size())).put(0);
    out << header << std::string(64, '\0');
  };
  header_file("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }");
  test::require_user_error([&] { read_npy(temp("fortran.npy")); }, {"Fortran order"});
  header_file("big_endian.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }");
  test::require_user_error([&] { read_npy(temp("big_endian.npy")); }, {"'>f4'", "not read"});
  header_file("shape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }");
  test::require_user_error([&] { read_npy(temp("shape.npy")); }, {"malformed shape"});
  header_file("structured.npy", "{'descr': [('a', '<f4'), ('b', '<i8')], 'fortran_order': False, 'shape': (2,), }");
  test::require_user_error([&] { read_npy(temp("structured.npy")); }, {"[('a', '<f4')", "not read"});
  header_file("list.npy", "['descr', '<f4']");
  test::require_user_error([&] { read_npy(temp("list.npy")); }, {"not a Python dict literal", "no '{'"});
}

// The header is scanned in one pass, and the data's size is checked before anything is allocated
// (the reader is fuzzed: fuzz/npy_fuzzer.cpp).
TEST_CASE("npy: long headers and shapes beyond the data are refused in one line", "[npy][errors]") {
  auto npy = [](const std::string& dict, const std::string& data) {
    std::string header = dict + "\n";
    std::string bytes("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i) bytes += static_cast<char>(header.size() >> (8 * i));
    return bytes + header + data;
  };
  // A regular expression over this header overflowed the stack (a crash of `tessel run`).
  std::string long_descr = npy("{'descr': '" + std::string(200000, 'x') + "', 'fortran_order': False, 'shape': (3,), }",
                               std::string(12, '\0'));
  try {
    parse_npy(long_descr, "long.npy");
    FAIL("a 200000-character element type was read");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("(200000 characters)") != std::string::npos);
    CHECK(std::string(e.what()).size() < 200);
  }
  test::require_user_error(
      [&] { parse_npy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (200000000000,), }", "1234"), "big.npy"); },
      {"big.npy", "truncated", "needs 800000000000 bytes of data, it has 4"});
  NDArray a = NDArray::random_uniform({2, 5}, ElementType::of<float>(), 7);
  NDArray b = parse_npy(npy_bytes(a), "bytes");
  CHECK(b.shape() == a.shape());
  CHECK(max_abs_diff(a, b) == 0);
}
