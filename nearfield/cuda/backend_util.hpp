#pragma once
// Helpers shared by the CUDA back-end classes (gpu_backends.cpp, fast_backends.cpp): argument
// checks, the device-memory budget, and exception safety around asynchronous copies.
// Plain C++: no CUDA types.
#include <algorithm>
#include <cstddef>
#include <string>

#include "mlfma2d/errors.hpp"
#include "nearfield/backend.hpp"
#include "nearfield/cuda/cuda_common.hpp"

namespace mlfma2d::cuda {

/// Share of the free device memory a back end plans to use (the rest: the runtime, other work).
constexpr double kFreeFraction = 0.9;

inline void check_outputs(const NearFieldProblem& p, const double* q, double* potential,
                          double* fx, double* fy, const std::string& name) {
  if (!p.tree) throw InvalidInput("back end '" + name + "': evaluate() before setup()");
  if (p.tree->n_targets() > 0 && !potential) {
    throw InvalidInput("back end '" + name + "': no potential array");
  }
  if (p.tree->n_sources() > 0 && !q) throw InvalidInput("back end '" + name + "': no charges");
  if (p.field && p.tree->n_targets() > 0 && (!fx || !fy)) {
    throw InvalidInput("back end '" + name + "': field requested but fx or fy is null");
  }
}

/// min(kFreeFraction x free device memory, problem.gpu_memory if nonzero), bytes.
inline std::size_t device_budget(const NearFieldProblem& p) {
  std::size_t free_bytes = 0;
  device_memory(&free_bytes, nullptr);
  auto budget = static_cast<std::size_t>(kFreeFraction * double(free_bytes));
  if (p.gpu_memory > 0) budget = std::min(budget, p.gpu_memory);
  return budget;
}

/// Runs `body`; if it throws, waits for the stream (so no copy still reads or writes a buffer
/// being reused or freed) and rethrows.
template <class F>
void guarded(const Stream* stream, F&& body) {
  try {
    body();
  } catch (...) {
    if (stream) {
      try {
        stream->synchronize();
      } catch (...) {
      }
    }
    throw;
  }
}

}  // namespace mlfma2d::cuda
