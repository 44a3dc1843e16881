#include "runtime/trace.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "runtime/timer.hpp"

namespace mlfma2d {
namespace {
// The time of the first traced step: the origin of every line.
double origin() {
  static const double t0 = now_seconds();
  return t0;
}
}  // namespace

bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("MLFMA2D_TRACE");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

TraceScope::TraceScope(const char* what) : what_(what) {
  if (tracing()) start_ = now_seconds() - origin();
}

TraceScope::~TraceScope() {
  if (!tracing()) return;
  const double end = now_seconds() - origin();
  static std::mutex m;
  const std::lock_guard<std::mutex> lock(m);
  std::fprintf(stderr, "mlfma2d trace: start %9.3f ms  took %9.3f ms  thread %04zx  %s\n",
               1e3 * start_, 1e3 * (end - start_),
               std::hash<std::thread::id>{}(std::this_thread::get_id()) & 0xffff, what_);
}

}  // namespace mlfma2d
