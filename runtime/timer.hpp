#pragma once
// Wall-clock timing as a decorator: timed(slot, f) runs f and adds its seconds to slot.
#include <chrono>
#include <utility>

namespace mlfma2d {

inline double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
void timed(double* slot, F&& f) {
  const double t0 = now_seconds();
  std::forward<F>(f)();
  *slot += now_seconds() - t0;
}

}  // namespace mlfma2d
