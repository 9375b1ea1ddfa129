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
                        {"tolerance", tolerance}, {"kernels", ks}}
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
    for (const nlohmann::json& k : j.at("kernels"))
      r.kernels.push_back({k.at("library").get<std::string>(), k.at("function").get<std::string>()});
    if (r.threads < 1 || r.warmup < 0 || r.repeats < 1) user_error("the runner request has invalid options");
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

bool read_record(int fd, ResultRecord& record) {
  auto* bytes = reinterpret_cast<char*>(&record);
  size_t got = 0;
  while (got < sizeof(record)) {
    ssize_t n = read(fd, bytes + got, sizeof(record) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

bool write_record(int fd, const ResultRecord& record) {
  auto* bytes = reinterpret_cast<const char*>(&record);
  size_t put = 0;
  while (put < sizeof(record)) {
    ssize_t n = write(fd, bytes + put, sizeof(record) - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    put += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace tessel::runner
