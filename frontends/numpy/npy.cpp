// .npy reading and writing (frontends/numpy/npy.h). The format: the magic "\x93NUMPY", a version,
// a header length, a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}
// padded with spaces to a multiple of 64 bytes, then the raw data.
//
// The dict is read by a small scanner of its own, in one pass: a regular expression over a header
// of up to 1 MB recursed once per character in libstdc++ and overflowed the stack.
#include "frontends/numpy/npy.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "support/error.h"
#include "support/output_file.h"

namespace tessel::frontend {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
constexpr uint32_t kMaxHeaderBytes = 1u << 20;

struct Descr {
  const char* text;
  ElementType type;
};

const Descr kDescrs[] = {
    {"<f4", ElementType::of<float>()},   {"<f8", ElementType::of<double>()}, {"<i4", ElementType::of<int32_t>()},
    {"<i8", ElementType::of<int64_t>()}, {"|i1", ElementType::of<int8_t>()}, {"|u1", ElementType::of<uint8_t>()},
    {"|b1", ElementType::of<bool>()},
};

// Scans the header's dict literal into key -> value text ('<f4' with its quotes, False, (2, 3)).
class HeaderScanner {
 public:
  HeaderScanner(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  std::map<std::string, std::string, std::less<>> dict() {
    std::map<std::string, std::string, std::less<>> fields;
    expect('{');
    for (skip_spaces(); !at('}'); skip_spaces()) {
      std::string_view key = value();
      if (key.size() < 2 || (key.front() != '\'' && key.front() != '"')) fail("a key that is not a string");
      skip_spaces();
      expect(':');
      skip_spaces();
      fields[std::string(key.substr(1, key.size() - 2))] = std::string(value());
      skip_spaces();
      if (at(',')) ++pos_;
      else if (!at('}')) fail("no ',' or '}' after a value");
    }
    return fields;
  }

 private:
  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r' || text_[pos_] == '\n'))
      ++pos_;
  }
  void expect(char c) {
    if (!at(c)) fail(std::string("no '") + c + "'");
    ++pos_;
  }
  [[noreturn]] void fail(const std::string& why) const {
    user_error("'", what_, "' is not a .npy file: its header is not a Python dict literal (", why, " at byte ",
               pos_, " of the header)");
  }
  // A quoted string, a bracketed group (a tuple, a list of fields) or a bare word, as text.
  std::string_view value() {
    size_t start = pos_;
    if (at('\'') || at('"')) {
      size_t close = text_.find(text_[pos_], pos_ + 1);
      if (close == std::string_view::npos) fail("an unterminated string");
      pos_ = close + 1;
    } else if (at('(') || at('[')) {
      group();
    } else {
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      if (pos_ == start) fail("an unexpected character");
    }
    return text_.substr(start, pos_ - start);
  }
  // Past the bracket that closes the one at pos_; strings inside may hold brackets.
  void group() {
    std::string open;
    do {
      char c = text_[pos_];
      if (c == '(' || c == '[') {
        open += c;
      } else if (c == ')' || c == ']') {
        if (open.back() != (c == ')' ? '(' : '[')) fail("mismatched brackets");
        open.pop_back();
      } else if (c == '\'' || c == '"') {
        size_t close = text_.find(c, pos_ + 1);
        if (close == std::string_view::npos) fail("an unterminated string");
        pos_ = close;
      }
      ++pos_;
    } while (!open.empty() && pos_ < text_.size());
    if (!open.empty()) fail("an unclosed bracket");
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

// A header value as a message shows it: a long one cut, so that the message stays one line.
std::string excerpt(const std::string& value) {
  constexpr size_t kShown = 40;
  if (value.size() <= kShown) return value;
  return value.substr(0, kShown) + "... (" + std::to_string(value.size()) + " characters)";
}

const std::string& field(const std::map<std::string, std::string, std::less<>>& dict, const std::string& key,
                         const std::string& what) {
  auto it = dict.find(key);
  if (it == dict.end()) user_error("'", what, "' is not a .npy file: its header has no '", key, "'");
  return it->second;
}

const Descr& parse_descr(const std::string& value, const std::string& what) {
  std::string descr = value.size() >= 2 && (value.front() == '\'' || value.front() == '"')
                          ? value.substr(1, value.size() - 2)
                          : value;
  for (const Descr& d : kDescrs)
    if (descr == d.text) return d;
  user_error("'", what, "' holds elements of type '", excerpt(descr), "', which is not read (",
             "<f4, <f8, <i4, <i8, |i1, |u1, |b1 are)");
}

std::vector<int64_t> parse_shape(const std::string& tuple, const std::string& what) {
  auto malformed = [&] { user_error("'", what, "' has a malformed shape ", excerpt(tuple), " in its header"); };
  if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')') malformed();
  std::vector<int64_t> shape;
  std::stringstream in(tuple.substr(1, tuple.size() - 2));
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" "));
    item.erase(item.find_last_not_of(" ") + 1);
    if (item.empty()) continue;
    int64_t d = -1;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (error != std::errc() || end != item.data() + item.size() || d < 0) malformed();
    shape.push_back(d);
  }
  return shape;
}

// The little-endian header length after the magic and version; `pos` moves past it.
uint32_t header_length(std::string_view bytes, size_t& pos, const std::string& what) {
  if (bytes.size() < 8 || bytes.substr(0, 6) != kMagic) user_error("'", what, "' is not a .npy file (no NumPy magic)");
  int version = static_cast<unsigned char>(bytes[6]);
  if (version < 1 || version > 3) user_error("'", what, "' has .npy format version ", version, "; 1 to 3 are read");
  size_t width = version == 1 ? 2 : 4;
  if (bytes.size() < 8 + width) user_error("'", what, "' is truncated in its header");
  uint32_t length = 0;
  for (size_t i = width; i-- > 0;) length = length << 8 | static_cast<unsigned char>(bytes[8 + i]);
  if (length > kMaxHeaderBytes) user_error("'", what, "' has an implausible header size ", length);
  pos = 8 + width;
  return length;
}

}  // namespace

NDArray parse_npy(std::string_view bytes, const std::string& what) {
  size_t pos = 0;
  uint32_t length = header_length(bytes, pos, what);
  if (bytes.size() - pos < length) user_error("'", what, "' is truncated in its header");
  auto dict = HeaderScanner(bytes.substr(pos, length), what).dict();
  pos += length;
  const Descr& descr = parse_descr(field(dict, "descr", what), what);
  const std::string& order = field(dict, "fortran_order", what);
  if (order == "True") user_error("'", what, "' is in Fortran order; save it in C order (np.ascontiguousarray)");
  if (order != "False") user_error("'", what, "' has fortran_order ", excerpt(order), "; False or True are read");
  std::vector<int64_t> shape = parse_shape(field(dict, "shape", what), what);
  uint64_t count = 1;
  for (int64_t d : shape) {
    if (d > 0 && count > (uint64_t{1} << 40) / static_cast<uint64_t>(d))
      user_error("'", what, "' declares an implausibly large shape");
    count *= static_cast<uint64_t>(d);
  }
  uint64_t data_bytes = count * static_cast<uint64_t>(descr.type.bytes());
  if (bytes.size() - pos < data_bytes)
    user_error("'", what, "' is truncated: its shape ", shape_str(shape), " needs ", data_bytes, " bytes of data, it has ",
               bytes.size() - pos);
  NDArray out = NDArray::empty(shape, descr.type);
  if (data_bytes > 0) std::memcpy(out.data(), bytes.data() + pos, data_bytes);
  return out;
}

NDArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) user_error("cannot read '", path, "': ", std::strerror(errno));
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) user_error("cannot read '", path, "': ", std::strerror(errno));
  return parse_npy(contents.view(), path);
}

std::string npy_bytes(const NDArray& array) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs)
    if (array.dtype() == d.type) descr = d.text;
  if (!descr) user_error("element type ", array.dtype().str(), " has no .npy spelling here");
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (int64_t d : array.shape()) dict << d << ", ";
  dict << "), }";
  std::string header = dict.str();
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += {'\x01', '\x00', static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out += header;
  out.append(static_cast<const char*>(array.data()), array.nbytes());
  return out;
}

void write_npy(const std::string& path, const NDArray& array) {
  std::string bytes;
  try {
    bytes = npy_bytes(array);
  } catch (const UserError& e) {
    user_error("cannot write '", path, "': ", e.what());
  }
  write_file_atomically(path, bytes);
}

}  // namespace tessel::frontend
