// .npy reading and writing (frontends/numpy/npy.h). The format: the magic "\x93NUMPY", a version,
// a header length, a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}
// padded with spaces to a multiple of 64 bytes, then the raw data.
#include "frontends/numpy/npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/error.h"

namespace tessel::frontend {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  const char* text;
  ElementType type;
};

const Descr kDescrs[] = {
    {"<f4", ElementType::of<float>()},   {"<f8", ElementType::of<double>()}, {"<i4", ElementType::of<int32_t>()},
    {"<i8", ElementType::of<int64_t>()}, {"|i1", ElementType::of<int8_t>()}, {"|u1", ElementType::of<uint8_t>()},
    {"|b1", ElementType::of<bool>()},
};

// The value text of `key` in the header dict.
std::string field(const std::string& header, const std::string& key, const std::string& path) {
  std::smatch m;
  std::regex pattern("'" + key + "'\\s*:\\s*('[^']*'|True|False|\\([^)]*\\))");
  if (!std::regex_search(header, m, pattern))
    user_error("'", path, "' is not a .npy file: its header has no '", key, "'");
  return m[1].str();
}

std::vector<int64_t> parse_shape(const std::string& tuple, const std::string& path) {
  std::vector<int64_t> shape;
  std::string inner = tuple.substr(1, tuple.size() - 2);
  std::stringstream in(inner);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" "));
    item.erase(item.find_last_not_of(" ") + 1);
    if (item.empty()) continue;
    try {
      size_t used = 0;
      int64_t d = std::stoll(item, &used);
      if (used != item.size() || d < 0) throw std::invalid_argument(item);
      shape.push_back(d);
    } catch (const std::exception&) {
      user_error("'", path, "' has a malformed shape ", tuple, " in its header");
    }
  }
  return shape;
}

}  // namespace

NDArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) user_error("cannot read '", path, "': ", std::strerror(errno));
  char magic[6];
  uint8_t version[2];
  if (!in.read(magic, 6) || std::memcmp(magic, kMagic, 6) != 0 || !in.read(reinterpret_cast<char*>(version), 2))
    user_error("'", path, "' is not a .npy file (no NumPy magic)");
  uint32_t header_size = 0;
  uint8_t size_bytes[4] = {0, 0, 0, 0};
  int width = version[0] == 1 ? 2 : 4;
  if (version[0] < 1 || version[0] > 3)
    user_error("'", path, "' has .npy format version ", int(version[0]), "; 1 to 3 are read");
  if (!in.read(reinterpret_cast<char*>(size_bytes), width)) user_error("'", path, "' is truncated in its header");
  for (int i = width - 1; i >= 0; --i) header_size = header_size << 8 | size_bytes[i];
  if (header_size > (1u << 20)) user_error("'", path, "' has an implausible header size ", header_size);
  std::string header(header_size, '\0');
  if (!in.read(header.data(), header_size)) user_error("'", path, "' is truncated in its header");
  std::string descr = field(header, "descr", path);
  descr = descr.substr(1, descr.size() - 2);
  if (field(header, "fortran_order", path) != "False")
    user_error("'", path, "' is in Fortran order; save it in C order (np.ascontiguousarray)");
  const Descr* found = nullptr;
  for (const Descr& d : kDescrs)
    if (descr == d.text) found = &d;
  if (!found)
    user_error("'", path, "' holds elements of type '", descr, "', which is not read (",
               "<f4, <f8, <i4, <i8, |i1, |u1, |b1 are)");
  std::vector<int64_t> shape = parse_shape(field(header, "shape", path), path);
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d > 0 && count > (int64_t{1} << 40) / d) user_error("'", path, "' declares an implausibly large shape");
    count *= d;
  }
  NDArray out = NDArray::empty(shape, found->type);
  if (!in.read(static_cast<char*>(out.data()), static_cast<std::streamsize>(out.nbytes())))
    user_error("'", path, "' is truncated: its shape ", shape_str(shape), " needs ", out.nbytes(), " bytes of data");
  return out;
}

void write_npy(const std::string& path, const NDArray& array) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs)
    if (array.dtype() == d.type) descr = d.text;
  if (!descr) user_error("cannot write '", path, "': element type ", array.dtype().str(), " has no .npy spelling here");
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (int64_t d : array.shape()) dict << d << ", ";
  dict << "), }";
  std::string header = dict.str();
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  uint16_t size = static_cast<uint16_t>(header.size());
  out.write(kMagic, 6);
  out.put(1).put(0);
  out.put(static_cast<char>(size & 0xff)).put(static_cast<char>(size >> 8));
  out << header;
  out.write(static_cast<const char*>(array.data()), static_cast<std::streamsize>(array.nbytes()));
  out.flush();
  if (!out) user_error("cannot write '", path, "': ", std::strerror(errno));
}

}  // namespace tessel::frontend
