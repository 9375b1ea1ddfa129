// Request and result encoding of the runner protocol (runtime/runner/protocol.h).
#include "runtime/runner/protocol.h"

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace tessel::runner {

static_assert(sizeof(ResultRecord) <= PIPE_BUF);

std::string Request::to_json() const {
  nlohmann::json ks = nlohmann::json::array();
  for (const KernelRef& k : kernels) ks.push_back({{"library", k.library}, {"function", k.function}});
  return nlohmann::json{{"version", kProtocolVersion}, {"threads", threads}, {"warmup", warmup}, {"repeats", repeats},
                        {"tolerance", tolerance}, {"flush_cache", flush_cache}, {"kernels", ks},
                        {"models", models}, {"rounds", rounds}}
      .dump();
}

Request Request::from_json(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) user_error("the runner request is not a JSON object");
  if (j.value("version", 0) != kProtocolVersion)
    user_error("the runner request has protocol version ", j.value("version", 0), ", this runner speaks ",
               kProtocolVersion, ": the tessel-runner program belongs to another Tessel build");
  try {
    Request r;
    r.threads = j.at("threads").get<int>();
    r.warmup = j.at("warmup").get<int>();
    r.repeats = j.at("repeats").get<int>();
    r.tolerance = j.at("tolerance").get<double>();
    r.flush_cache = j.at("flush_cache").get<bool>();
    for (const nlohmann::json& k : j.at("kernels"))
      r.kernels.push_back({k.at("library").get<std::string>(), k.at("function").get<std::string>()});
    r.models = j.at("models").get<std::vector<std::string>>();
    r.rounds = j.at("rounds").get<int>();
    if (r.threads < 1 || r.warmup < 0 || r.repeats < 1 || r.rounds < 0 ||
        (!r.models.empty() && (!r.kernels.empty() || r.rounds < 1)))
      user_error("the runner request has invalid options");
    return r;
  } catch (const nlohmann::json::exception& e) {
    user_error("malformed runner request: ", e.what());
  }
}

void ResultRecord::set_error(const std::string& message) {
  std::memset(error, 0, sizeof(error));
  std::strncpy(error, message.c_str(), sizeof(error) - 1);
}

std::string ResultRecord::error_text() const { return std::string(error, strnlen(error, sizeof(error))); }

namespace {

// Moves all `size` bytes with `io` (read or write), across short transfers and EINTR; false at
// end of file or on an error.
template <typename Byte, typename Io>
bool transfer_whole(int fd, Byte* bytes, size_t size, Io io) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = io(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool read_record(int fd, ResultRecord& record) {
  return transfer_whole(fd, reinterpret_cast<char*>(&record), sizeof(record), ::read);
}

bool write_record(int fd, const ResultRecord& record) {
  return transfer_whole(fd, reinterpret_cast<const char*>(&record), sizeof(record), ::write);
}

}  // namespace tessel::runner
