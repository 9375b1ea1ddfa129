// Typed access to operator attributes and their text (ir/graph/attributes.h).
#include "ir/graph/attributes.h"

#include <cmath>
#include <sstream>

#include "support/error.h"

namespace tessel::graph {

namespace {

const char* kind_name(const AttrValue& v) {
  static const char* names[] = {"an integer", "a float", "a string", "an integer list", "a float list"};
  return names[v.index()];
}

template <typename T>
const T& typed(const AttrValue& v, const std::string& name, const char* wanted) {
  if (const T* value = std::get_if<T>(&v)) return *value;
  user_error("attribute '", name, "' is ", kind_name(v), " but must be ", wanted);
}

// Nine significant digits when they read back as `v` or `v` is a float32 (which ONNX attributes
// are: nine digits tell every float32 apart), all seventeen otherwise, so equal texts mean equal
// values.
void print_number(std::ostream& os, double v) {
  std::ostringstream text;
  text.precision(9);
  text << v;
  bool is_float = static_cast<double>(static_cast<float>(v)) == v;
  if (std::isfinite(v) && !is_float && std::stod(text.str()) != v) {
    text.str("");
    text.precision(17);
    text << v;
  }
  std::string s = text.str();
  // Keep floats recognizable as floats ("1.0", not "1").
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  os << s;
}

template <typename T>
void print_list(std::ostream& os, const std::vector<T>& values) {
  os << "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) os << ", ";
    if constexpr (std::is_floating_point_v<T>)
      print_number(os, values[i]);
    else
      os << values[i];
  }
  os << "]";
}

}  // namespace

const AttrValue& Attributes::at(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) user_error("the required attribute '", name, "' is missing");
  return it->second;
}

int64_t Attributes::get_int(const std::string& name) const { return typed<int64_t>(at(name), name, "an integer"); }

double Attributes::get_float(const std::string& name) const {
  const AttrValue& v = at(name);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return typed<double>(v, name, "a float");
}

const std::string& Attributes::get_string(const std::string& name) const {
  return typed<std::string>(at(name), name, "a string");
}

const Ints& Attributes::ints(const std::string& name) const { return typed<Ints>(at(name), name, "an integer list"); }

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
  return has(name) ? get_int(name) : fallback;
}

double Attributes::get_float(const std::string& name, double fallback) const {
  return has(name) ? get_float(name) : fallback;
}

std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
  return has(name) ? get_string(name) : fallback;
}

Ints Attributes::ints(const std::string& name, const Ints& fallback) const { return has(name) ? ints(name) : fallback; }

std::string Attributes::str() const {
  if (values_.empty()) return "";
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (const auto& [name, value] : values_) {
    os << (first ? "" : ", ") << name << "=";
    first = false;
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int64_t>)
            os << v;
          else if constexpr (std::is_same_v<T, double>)
            print_number(os, v);
          else if constexpr (std::is_same_v<T, std::string>)
            os << '"' << v << '"';
          else
            print_list(os, v);
        },
        value);
  }
  os << "}";
  return os.str();
}

}  // namespace tessel::graph
