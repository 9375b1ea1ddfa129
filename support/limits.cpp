// The ranges of user-given numbers and the one parser for them (support/limits.h).
#include "support/limits.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "support/error.h"

namespace tessel {

namespace limits {

Allowed threads() { return Allowed::at_least(1).at_most(kMaxThreads); }
Allowed trials() { return Allowed::at_least(1).at_most(kMaxTrials); }
Allowed batch() { return Allowed::at_least(1).at_most(kMaxBatch); }
Allowed repeats() { return Allowed::at_least(1).at_most(kMaxRepeats); }
Allowed select() { return Allowed::at_least(0).at_most(kMaxSelect); }
Allowed percent() { return Allowed::at_least(0).at_most(100); }
Allowed seed() { return Allowed::at_least(0); }
Allowed timeout_s() { return Allowed::above(0).at_most(kMaxTimeoutS); }
Allowed iterations() { return Allowed::at_least(1).at_most(kMaxIterations); }
Allowed population() { return Allowed::at_least(1).at_most(kMaxPopulation); }

}  // namespace limits

namespace {

// from_chars takes no leading '+': it is dropped, unless another sign follows ("+-1").
std::string_view without_plus(const std::string& text) {
  std::string_view view(text);
  if (!view.empty() && view[0] == '+') {
    view.remove_prefix(1);
    if (!view.empty() && (view[0] == '+' || view[0] == '-')) return {};
  }
  return view;
}

template <typename T>
std::optional<T> read_whole(const std::string& text) {
  std::string_view view = without_plus(text);
  T value{};
  auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (view.empty() || error != std::errc() || end != view.data() + view.size()) return std::nullopt;
  return value;
}

// "-" followed by a digit, or a digit: from_chars would also take "-.5" and "inf" for doubles.
bool looks_numeric(const std::string& text) {
  std::string_view view = without_plus(text);
  if (!view.empty() && view[0] == '-') view.remove_prefix(1);
  return !view.empty() && (std::isdigit(static_cast<unsigned char>(view[0])) ||
                           (view[0] == '.' && view.size() > 1 && std::isdigit(static_cast<unsigned char>(view[1]))));
}

[[noreturn]] void out_of_range(const std::string& what, const std::string& text, const Allowed& allowed) {
  user_error(what, " is ", text, "; ", allowed.describe());
}

}  // namespace

std::optional<int64_t> read_integer(const std::string& text) {
  if (!looks_numeric(text)) return std::nullopt;
  return read_whole<int64_t>(text);
}

std::optional<double> read_number(const std::string& text) {
  if (!looks_numeric(text)) return std::nullopt;
  std::optional<double> value = read_whole<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

int64_t parse_integer(const std::string& what, const std::string& text, const Allowed& allowed) {
  std::optional<int64_t> value = read_integer(text);
  if (!value) {
    // Digits that do not fit in 64 bits are a number out of range, not a malformed one.
    if (looks_numeric(text) && text.find_first_not_of("+-0123456789") == std::string::npos)
      out_of_range(what, text, allowed);
    user_error(what, " must be an integer, got '", text, "'");
  }
  if (!allowed.admits(*value)) out_of_range(what, text, allowed);
  return *value;
}

double parse_number(const std::string& what, const std::string& text, const Allowed& allowed) {
  std::optional<double> value = read_number(text);
  if (!value) user_error(what, " must be a number, got '", text, "'");
  if (!allowed.admits(*value)) out_of_range(what, text, allowed);
  return *value;
}

nlohmann::json typed_scalar(const std::string& text) {
  if (std::optional<int64_t> i = read_integer(text)) return *i;
  if (std::optional<double> d = read_number(text)) return *d;
  if (text == "true") return true;
  if (text == "false") return false;
  return text;
}

}  // namespace tessel
