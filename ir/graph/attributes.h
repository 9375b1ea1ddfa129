// The attributes of a graph operator node: named integers, floats, strings and integer or float
// lists ("strides" = [2, 2], "epsilon" = 1e-5, "mode" = "constant"). Typed getters throw a
// UserError naming the attribute when it is missing or has another type, so operators read
// their attributes without checking each one by hand.
//
//   Attributes a{{"strides", Ints{2, 2}}, {"groups", int64_t{1}}};
//   a.ints("strides");          // {2, 2}
//   a.get_int("groups", 1);     // 1, the default when absent
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tessel::graph {

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;
using AttrValue = std::variant<int64_t, double, std::string, Ints, Floats>;

class Attributes {
 public:
  Attributes() = default;
  Attributes(std::initializer_list<std::pair<const std::string, AttrValue>> values) : values_(values) {}

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, AttrValue value) { values_[name] = std::move(value); }
  const std::map<std::string, AttrValue>& values() const { return values_; }

  // Required attributes: UserError if absent or of another type.
  int64_t get_int(const std::string& name) const;
  double get_float(const std::string& name) const;  // an integer attribute converts
  const std::string& get_string(const std::string& name) const;
  const Ints& ints(const std::string& name) const;
  // Optional ones: the default when absent, UserError if present with another type.
  int64_t get_int(const std::string& name, int64_t fallback) const;
  double get_float(const std::string& name, double fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  Ints ints(const std::string& name, const Ints& fallback) const;

  // "{groups=1, strides=[2, 2]}" (keys sorted); "" when there are none. Equal attributes print
  // equally, so the text is also a key for caching what depends on them.
  std::string str() const;

  bool operator==(const Attributes& other) const { return values_ == other.values_; }

 private:
  const AttrValue& at(const std::string& name) const;
  std::map<std::string, AttrValue> values_;
};

}  // namespace tessel::graph
