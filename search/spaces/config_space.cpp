// Mixed-radix numbering and JSON form of configurations (search/spaces/config_space.h).
#include "search/spaces/config_space.h"

#include <algorithm>
#include <random>
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

Config ConfigSpace::get(const Candidate& candidate) const {
  if (!candidate.is_index())
    user_error("candidate ", candidate.str(), " is a decision list; this space's configurations are indices");
  return get(candidate.index());
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

Candidate ConfigSpace::candidate_from_record(const nlohmann::json& json) const {
  const nlohmann::json& values = json.is_object() && json.contains("knobs") ? json.at("knobs") : json;
  size_t named = 0;
  while (values.is_object() && named < knobs_.size() && values.contains(knobs_[named].name)) ++named;
  bool suffix_missing = named > 0 && std::none_of(knobs_.begin() + named, knobs_.end(), [&](const Knob& k) {
    return values.contains(k.name);
  });
  if (named == knobs_.size() || !suffix_missing) return candidate_from_json(json);  // as usual, with its errors
  nlohmann::json grown = values;
  for (size_t i = named; i < knobs_.size(); ++i) grown[knobs_[i].name] = knobs_[i].choices.front();
  return from_json(grown).candidate();
}

std::vector<size_t> ConfigSpace::choices_of(const Candidate& c) const { return get(c).choices(); }

bool ConfigSpace::contains(const Candidate& c) const { return c.is_index() && c.index() < size_; }

Candidate ConfigSpace::random(Rng& rng) const {
  return Candidate::from_index(std::uniform_int_distribution<uint64_t>(0, size_ - 1)(rng));
}

Candidate ConfigSpace::mutate(const Candidate& c, Rng& rng) const {
  std::vector<size_t> choices = choices_of(c);
  std::vector<size_t> movable;
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (knobs_[k].size() > 1) movable.push_back(k);
  if (movable.empty()) return c;
  size_t knob = movable[std::uniform_int_distribution<size_t>(0, movable.size() - 1)(rng)];
  size_t size = knobs_[knob].size();
  size_t shift = std::uniform_int_distribution<size_t>(1, size - 1)(rng);
  choices[knob] = (choices[knob] + shift) % size;
  return Candidate::from_index(encode(choices));
}

Candidate ConfigSpace::crossover(const Candidate& a, const Candidate& b, Rng& rng) const {
  std::vector<size_t> x = choices_of(a), y = choices_of(b);
  std::bernoulli_distribution coin(0.5);
  for (size_t k = 0; k < x.size(); ++k)
    if (coin(rng)) x[k] = y[k];
  return Candidate::from_index(encode(x));
}

Candidate ConfigSpace::perturb(const Candidate& c, double probability, Rng& rng) const {
  std::vector<size_t> choices = choices_of(c);
  std::bernoulli_distribution flip(probability);
  for (size_t k = 0; k < choices.size(); ++k) {
    size_t size = knobs_[k].size();
    if (size > 1 && flip(rng)) choices[k] = std::uniform_int_distribution<size_t>(0, size - 1)(rng);
  }
  return Candidate::from_index(encode(choices));
}

std::vector<Candidate> ConfigSpace::neighbours(const Candidate& c, size_t radius) const {
  std::vector<size_t> from = choices_of(c);
  std::vector<Candidate> out;
  auto r = static_cast<int64_t>(radius);
  for (size_t k = 0; k < from.size(); ++k) {
    auto size = static_cast<int64_t>(knobs_[k].size());
    for (int64_t step = -r; step <= r; ++step) {
      int64_t choice = static_cast<int64_t>(from[k]) + step;
      if (step == 0 || choice < 0 || choice >= size) continue;
      std::vector<size_t> moved = from;
      moved[k] = static_cast<size_t>(choice);
      out.push_back(Candidate::from_index(encode(moved)));
    }
  }
  return out;
}

std::vector<int64_t> ConfigSpace::decisions(const Candidate& c) const {
  std::vector<size_t> choices = choices_of(c);
  return {choices.begin(), choices.end()};
}

nlohmann::json ConfigSpace::to_json(const Candidate& c) const { return get(c).to_json()["knobs"]; }

}  // namespace tessel::search
