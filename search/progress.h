// The tuner's progress line on stderr: trials done, best GFLOP/s, speedup over the vendor
// baseline, errors so far. It redraws one line in place, and stays silent when stderr is not a
// terminal (logs and pipes get only the final report).
#pragma once
#include <cstdint>
#include <string>

namespace tessel::search {

struct ProgressState {
  int64_t done = 0, total = 0, errors = 0;
  double best_gflops = 0;
  double speedup = 0;  // over the baseline; 0 when there is none or nothing ran yet
  std::string baseline;
};

// The line drawn for a state, e.g. "[#####     ]  32/64 trials  best 210.4 GFLOP/s  0.93x openblas  2 errors".
std::string progress_line(const ProgressState& state);

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);  // enabled only if also stderr is a terminal
  ~ProgressBar();
  void show(const ProgressState& state);
  void finish();  // ends the line; called by the destructor if needed

 private:
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace tessel::search
