#pragma once
// Latency tracing: with MLFMA2D_TRACE=1 in the environment, each traced step prints one line on
// stderr when it ends -- its start (ms since the process's first traced step), its duration, the
// thread -- so that what overlaps what in a Solver's construction (the device starting on its own
// thread beside the tree) can be read off. Off (one cached branch) otherwise.
namespace mlfma2d {

/// Whether MLFMA2D_TRACE is set to something other than "" or "0" (read once).
bool tracing();

/// \brief Traces the scope it lives in: `TraceScope t("sort");`. `what` must outlive it.
class TraceScope {
 public:
  explicit TraceScope(const char* what);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  const char* what_;
  double start_ = 0;
};

}  // namespace mlfma2d
