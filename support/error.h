// Errors a user can act on. UserError is for bad input (a config, a command-line argument, an
// illegal schedule request): its message says what is wrong, where, and what to do, and the tools
// turn it into a one-line message and a non-zero exit. InternalError marks a broken invariant
// inside Tessel: a bug to report, never the user's fault.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessel {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

namespace detail {
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}
}  // namespace detail

// "a, b, c": the valid names, values or keys an error message lists.
inline std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Throws UserError with the parts streamed together: user_error("split factor ", f, " must be > 0").
template <typename... Parts>
[[noreturn]] void user_error(const Parts&... parts) {
  throw UserError(detail::concat(parts...));
}

// Checks an internal invariant; failing it is a Tessel bug.
#define TESSEL_CHECK(cond, ...)                                                                \
  do {                                                                                         \
    if (!(cond))                                                                               \
      throw ::tessel::InternalError(::tessel::detail::concat(__FILE__, ":", __LINE__,          \
                                                             ": check failed: " #cond ". ", \
                                                             ##__VA_ARGS__));                  \
  } while (0)

}  // namespace tessel
