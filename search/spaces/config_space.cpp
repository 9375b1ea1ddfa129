// Mixed-radix numbering and JSON form of configurations (search/spaces/config_space.h).
#include "search/spaces/config_space.h"

#include <sstream>

#include "support/error.h"

namespace tessel::search {

namespace {
constexpr uint64_t kMaxSpaceSize = uint64_t(1) << 62;
}

Config::Config(const ConfigSpace* space, uint64_t index, std::vector<size_t> choices)
    : space_(space), index_(index), choices_(std::move(choices)) {}

const nlohmann::json& Config::value(const std::string& knob) const {
  size_t position = space_->knob_position(knob);
  return space_->knobs()[position].choices[choices_[position]];
}

std::vector<int64_t> Config::split(const std::string& knob) const { return value(knob).get<std::vector<int64_t>>(); }
std::vector<int> Config::order(const std::string& knob) const { return value(knob).get<std::vector<int>>(); }
ForKind Config::annotation(const std::string& knob) const { return parse_annotation(value(knob).get<std::string>()); }
int64_t Config::get_int(const std::string& knob) const { return value(knob).get<int64_t>(); }
std::string Config::get_string(const std::string& knob) const { return value(knob).get<std::string>(); }

nlohmann::ordered_json Config::to_json() const {
  nlohmann::ordered_json knobs = nlohmann::ordered_json::object();
  for (size_t i = 0; i < choices_.size(); ++i) {
    const Knob& knob = space_->knobs()[i];
    knobs[knob.name] = knob.choices[choices_[i]];
  }
  return {{"index", index_}, {"knobs", knobs}};
}

std::string Config::describe() const {
  std::ostringstream out;
  for (size_t i = 0; i < choices_.size(); ++i) {
    const Knob& knob = space_->knobs()[i];
    out << (i ? " " : "") << knob.name << "=" << knob.choices[choices_[i]].dump();
  }
  return out.str();
}

void ConfigSpace::add(Knob knob) {
  for (const Knob& k : knobs_) TESSEL_CHECK(k.name != knob.name, "knob '", knob.name, "' declared twice");
  TESSEL_CHECK(knob.size() >= 1 && size_ <= kMaxSpaceSize / knob.size(), "space too large at knob '", knob.name, "'");
  size_ *= knob.size();
  knobs_.push_back(std::move(knob));
}

size_t ConfigSpace::knob_position(const std::string& name) const {
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (knobs_[i].name == name) return i;
  std::vector<std::string> valid;
  for (const Knob& k : knobs_) valid.push_back(k.name);
  user_error("unknown knob '", name, "'; this space has: ", join_list(valid));
}

const Knob& ConfigSpace::knob(const std::string& name) const { return knobs_[knob_position(name)]; }

Config ConfigSpace::get(uint64_t index) const {
  if (index >= size_)
    user_error("configuration index ", index, " is outside the space of ", size_, " configurations");
  return Config(this, index, decode(index));
}

uint64_t ConfigSpace::encode(const std::vector<size_t>& choices) const {
  TESSEL_CHECK(choices.size() == knobs_.size(), "encode: ", choices.size(), " choices for ", knobs_.size(), " knobs");
  uint64_t index = 0;
  for (size_t i = knobs_.size(); i-- > 0;) {
    TESSEL_CHECK(choices[i] < knobs_[i].size(), "choice ", choices[i], " of knob '", knobs_[i].name, "'");
    index = index * knobs_[i].size() + choices[i];
  }
  return index;
}

std::vector<size_t> ConfigSpace::decode(uint64_t index) const {
  TESSEL_CHECK(index < size_, "decode: index ", index, " outside ", size_);
  std::vector<size_t> choices(knobs_.size());
  for (size_t i = 0; i < knobs_.size(); ++i) {
    choices[i] = static_cast<size_t>(index % knobs_[i].size());
    index /= knobs_[i].size();
  }
  return choices;
}

Config ConfigSpace::from_json(const nlohmann::json& json) const {
  const nlohmann::json& values = json.contains("knobs") ? json.at("knobs") : json;
  if (!values.is_object()) user_error("a configuration must be a JSON object of knob values, got ", json.dump());
  for (const auto& [name, value] : values.items()) knob_position(name);  // rejects unknown knobs
  std::vector<size_t> choices;
  for (const Knob& knob : knobs_) {
    if (!values.contains(knob.name)) user_error("configuration ", json.dump(), " lacks knob '", knob.name, "'");
    choices.push_back(knob.index_of(values.at(knob.name)));
  }
  uint64_t index = encode(choices);
  if (json.contains("index") && json.at("index") != index)
    user_error("configuration index ", json.at("index").dump(), " does not match its knob values (index ", index, ")");
  return Config(this, index, std::move(choices));
}

}  // namespace tessel::search
