#include "app/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <ostream>

#include "runtime/text.hpp"

namespace mlfma2d::app {

namespace {

// Seconds before a step is announced, and between throttled lines: 1, or $MLFMA2D_PROGRESS_AFTER.
double progress_interval() {
  if (const char* env = std::getenv("MLFMA2D_PROGRESS_AFTER"); env && *env) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (*end == '\0' && v >= 0 && std::isfinite(v)) return v;
  }
  return 1.0;
}

}  // namespace

Progress::Progress(std::ostream& err, bool quiet)
    : err_(err), on_(!quiet), tty_(::isatty(STDERR_FILENO) == 1), after_(progress_interval()) {}

ThrottledLines::ThrottledLines(std::ostream& err, bool quiet)
    : err_(err),
      on_(!quiet),
      interval_(progress_interval()),
      last_(std::chrono::steady_clock::now()) {}

void ThrottledLines::operator()(const std::string& line) {
  if (!on_) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < interval_) return;
  last_ = now;
  ++shown_;
  err_ << "  " << line << std::endl;
}

std::unique_ptr<Progress::Step> Progress::step(const std::string& what) const {
  return std::make_unique<Step>(*this, what);
}

Progress::Step::Step(const Progress& progress, std::string what)
    : progress_(progress), what_(std::move(what)), start_(std::chrono::steady_clock::now()) {
  if (!progress_.on_) return;
  if (progress_.tty_ || progress_.after_ <= 0) {
    say(what_ + "...");
    return;
  }
  watcher_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto after = std::chrono::duration<double>(progress_.after_);
    if (!done_.wait_for(lock, after, [this] { return finished_; })) {
      say(what_ + "...");
    }
  });
}

Progress::Step::~Step() {
  if (!progress_.on_) return;
  if (watcher_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
    }
    done_.notify_one();
    watcher_.join();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (seconds >= progress_.after_) say(what_ + format(": done in %.1f s", seconds));
}

// One whole line at a time (the watcher thread writes only while the step's main thread is busy
// with the step itself).
void Progress::Step::say(const std::string& line) {
  progress_.err_ << line << std::endl;
}

std::string duration_text(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long s = std::lround(seconds);
  if (s < 60) return format("%lds", s);
  if (s < 3600) return format("%ldm%02lds", s / 60, s % 60);
  return format("%ldh%02ldm", s / 3600, (s / 60) % 60);
}

std::string utc_now() {
  char buffer[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

ProgressBar::ProgressBar(std::ostream& err, std::string name, std::size_t total, bool quiet)
    : err_(err),
      name_(std::move(name)),
      total_(std::max<std::size_t>(total, 1)),
      tty_(!quiet && ::isatty(STDERR_FILENO)),
      lines_(!quiet && !tty_),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::note(const std::string& line) {
  if (tty_) err_ << "\r\033[K";
  if (tty_ || lines_) err_ << line << "\n";
  if (tty_) draw();
  err_.flush();
}

void ProgressBar::label(const std::string& what) {
  label_ = what;
  if (tty_) draw();
}

void ProgressBar::step() {
  ++done_;
  if (tty_) draw();
  const std::size_t decile = 10 * done_ / total_;
  if (lines_ && decile > decile_) {
    decile_ = decile;
    err_ << format("sweep %s: %3zu%% (%zu/%zu), elapsed %s, left about %s", name_.c_str(),
                   100 * done_ / total_, done_, total_, duration_text(elapsed()).c_str(),
                   duration_text(left()).c_str())
         << std::endl;
  }
}

void ProgressBar::finish() {
  if (tty_) err_ << "\r\033[K" << std::flush;
}

double ProgressBar::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double ProgressBar::left() const {
  return done_ ? elapsed() / double(done_) * double(total_ - std::min(done_, total_))
               : std::numeric_limits<double>::quiet_NaN();
}

void ProgressBar::draw() {
  constexpr int kWidth = 30;
  const int filled = int(kWidth * done_ / total_);
  err_ << "\r\033[K"
       << "sweep " << name_ << " [" << std::string(filled, '#') << std::string(kWidth - filled, '.')
       << "] "
       << format("%3zu%% %zu/%zu, left %s  %s", 100 * done_ / total_, done_, total_,
                 duration_text(left()).c_str(), label_.c_str())
       << std::flush;
}

}  // namespace mlfma2d::app
