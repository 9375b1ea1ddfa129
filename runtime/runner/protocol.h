// The protocol between a process that measures kernels (search/measure/sandbox_runner.h) and the
// `tessel-runner` program it starts for each batch (runtime/runner/runner_main.cpp). The runner
// links only libtessel_runtime.so: it loads the kernels from their exported libraries, so nothing
// of the parent (JIT code, LLVM, OpenMP or thread-pool state) is inherited.
//
// The parent starts `tessel-runner --protocol 2 --parent PID` with three descriptors:
//   fd 3 (kRequestFd)  the request, JSON (Request::to_json): options and the kernels to measure
//   fd 4 (kTensorsFd)  a tensor file (runtime/tensor_file.h): the kernels' inputs in argument order,
//                      then the expected output named "reference"; written once per task and
//                      mapped copy-on-write by every runner, so nothing is copied per candidate
//   fd 5 (kResultFd)   the runner's results: one fixed-size ResultRecord per kernel, in order,
//                      written as soon as the kernel is measured
// A kernel whose record does not come within the time limit has hung (the parent kills the
// runner); a runner that dies before a kernel's record crashed in it. A record with position
// kSetupFailed says the runner could not start (bad request or data) and why.
//
// A request may instead name compiled models (Request::models, module folders; no kernels): the
// tensor file then holds the models' inputs, named as their graphs name them, and no reference.
// The runner runs each model once and compares its outputs with the first model's, within the
// tolerance times each output's largest magnitude (at least 1) (records 0 to
// M-1: Ok, WrongResult or Error), stops there unless all are Ok, and then times them in
// alternation: round r takes `repeats` samples of every model (whole runs, at least ~1 ms a
// sample), interleaved, starting with model r mod M, and reports model m's median at position
// M + r*M + m (the round's records in the order of its first samples, not by position).
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace tessel::runner {

inline constexpr int kProtocolVersion = 3;  // 2: Request::flush_cache; 3: Request::models
inline constexpr int kRequestFd = 3, kTensorsFd = 4, kResultFd = 5;
inline constexpr const char* kProgramName = "tessel-runner";
inline constexpr const char* kReferenceName = "reference";

struct KernelRef {
  std::string library;   // an exported module (runtime/module.h)
  std::string function;  // the function of it to measure
};

struct Request {
  int threads = 2;           // worker threads of the kernels (thread pool and OpenMP)
  int warmup = 1;            // untimed calls after the correctness check
  int repeats = 5;           // timed samples (support/timing.h)
  double tolerance = 1e-3;   // largest |output - reference| accepted
  // Each timed sample is one call after the inputs but the first are evicted from the caches, as
  // in a model, where a layer's weights come from memory and its input was just written.
  bool flush_cache = false;
  std::vector<KernelRef> kernels;
  std::vector<std::string> models;  // module folders to compare and time instead of kernels
  int rounds = 0;                   // of the models' alternating timing

  std::string to_json() const;
  static Request from_json(const std::string& text);  // throws UserError
};

enum class Outcome : int32_t {
  Ok = 0,           // correct, and timed
  WrongResult = 1,  // ran, but its output differs from the reference beyond the tolerance
  Error = 2,        // could not be run: the library does not load, the signature differs, ...
};

inline constexpr uint32_t kSetupFailed = UINT32_MAX;

// Fixed size and below PIPE_BUF, so each write is atomic.
struct ResultRecord {
  uint32_t position = 0;  // index into Request::kernels
  int32_t outcome = 0;
  double median_us = 0, min_us = 0, max_us = 0, spread_pct = 0, max_abs_err = 0;
  int32_t repeats = 0;
  char error[256] = {};

  void set_error(const std::string& message);
  std::string error_text() const;
};

// Reads one whole record; false at end of file (the writer is gone).
bool read_record(int fd, ResultRecord& record);
// Writes one record; false if the reader is gone.
bool write_record(int fd, const ResultRecord& record);

}  // namespace tessel::runner
