#pragma once
/// \file progress.hpp
/// Progress on stderr: the steps of a run (evaluate, compare, generate), and the sweeps' bar (a
/// bar on a terminal, else one line per 10%). Nothing with --quiet.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace mlfma2d::app {

/// \brief The steps of a run on stderr. On a terminal a step is announced when it starts
/// ("reading X..."); elsewhere (a log, a pipe) only when it is still running after 1 second (or
/// $MLFMA2D_PROGRESS_AFTER seconds), so short runs stay silent. Either way a step that took that
/// long ends with its time ("reading X: done in 2.3 s").
class Progress {
 public:
  /// Silent when `quiet`.
  Progress(std::ostream& err, bool quiet);

  /// \brief A step, announced and timed while it exists.
  class Step {
   public:
    Step(const Progress& progress, std::string what);
    ~Step();
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;

   private:
    void say(const std::string& line);

    const Progress& progress_;
    std::string what_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable done_;
    bool finished_ = false;
    std::thread watcher_;  ///< announces the step once it has run `after_` (not on a terminal)
  };

  /// \brief Starts a step; it ends when the returned object goes.
  [[nodiscard]] std::unique_ptr<Step> step(const std::string& what) const;
  /// Where detailed lines go (auto selection's candidates): stderr on a terminal, else nowhere.
  std::ostream* stream() const { return on_ && tty_ ? &err_ : nullptr; }

 private:
  std::ostream& err_;
  bool on_;
  bool tty_;
  double after_;  ///< seconds a step runs before it is announced (not on a terminal)
};

/// \brief Lines from inside a long computation (a solve's GMRES iterations), at most one per
/// second (or $MLFMA2D_PROGRESS_AFTER seconds, as Progress) on stderr; none when quiet. The first
/// line is shown once that long has passed since construction, so short runs stay silent.
class ThrottledLines {
 public:
  ThrottledLines(std::ostream& err, bool quiet);
  /// Shows `line` (indented) when the interval has passed since the last shown one.
  void operator()(const std::string& line);
  std::size_t shown() const { return shown_; }

 private:
  std::ostream& err_;
  bool on_;
  double interval_;
  std::mutex mutex_;  ///< a caller may report from several threads
  std::chrono::steady_clock::time_point last_;
  std::size_t shown_ = 0;
};

/// \brief A sweep's progress over `total` steps: a bar on a terminal, else a line per 10%.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, std::string name, std::size_t total, bool quiet);
  /// A line of its own (a skipped configuration, a failure), the bar redrawn below it.
  void note(const std::string& line);
  /// What is running now, shown after the bar.
  void label(const std::string& what);
  void step();
  void finish();
  double elapsed() const;

 private:
  double left() const;
  void draw();

  std::ostream& err_;
  std::string name_;
  std::size_t total_, done_ = 0, decile_ = 0;
  bool tty_, lines_;
  std::chrono::steady_clock::time_point start_;
  std::string label_;
};

/// Seconds as "42s", "3m07s" or "2h05m"; "?" when unknown.
std::string duration_text(double seconds);
/// The time now in UTC, ISO 8601: "2025-01-31T12:00:00Z".
std::string utc_now();

}  // namespace mlfma2d::app
