// The progress line (search/progress.h).
#include "search/progress.h"

#include <unistd.h>

#include <cstdio>
#include <iomanip>
#include <sstream>

namespace tessel::search {

std::string progress_line(const ProgressState& s) {
  constexpr int kWidth = 24;
  int filled = s.total > 0 ? static_cast<int>(kWidth * s.done / s.total) : 0;
  std::ostringstream out;
  out << "[" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "] " << s.done << "/" << s.total
      << " trials  best " << std::fixed << std::setprecision(1) << s.best_gflops << " GFLOP/s";
  if (s.speedup > 0) out << "  " << std::setprecision(2) << s.speedup << "x " << s.baseline;
  out << "  " << s.errors << (s.errors == 1 ? " error" : " errors");
  return out.str();
}

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::show(const ProgressState& state) {
  if (!enabled_) return;
  std::fprintf(stderr, "\r%s\033[K", progress_line(state).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace tessel::search
