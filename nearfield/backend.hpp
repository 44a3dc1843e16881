#pragma once
// The near-field (P2P) back-end interface. A back end is set up once for a geometry and then
// evaluates the E1 sums for any number of charge vectors, timing four phases apart:
//   collect  -- restructure data on the host
//   transfer -- host to device
//   kernel   -- the pair sums
//   return   -- device to host and scatter into the caller's target order
// A back end may leave a phase empty (the cpu back end has no transfer).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "solver/plan.hpp"
#include "solver/tree.hpp"

namespace mlfma2d {

/// \brief The geometry a back end works on. All pointers outlive the back end.
struct NearFieldProblem {
  const Tree* tree = nullptr;
  const Plan* plan = nullptr;
  /// Caller-order coordinates (the papers' "targetPoints"/"sourcePoints"): n_sources and
  /// n_targets entries. When tree->self, tx/ty equal x/y.
  const double* x = nullptr;
  const double* y = nullptr;
  const double* tx = nullptr;
  const double* ty = nullptr;
  bool field = false;
  int threads = 0;                 ///< host threads for collect/return; 0 = OpenMP default
  std::size_t gpu_memory = 0;      ///< device-memory budget, bytes; 0 = what is free
  std::size_t chunk_targets = 0;   ///< at most this many targets per chunk; 0 = automatic
};

/// \brief Seconds per phase of one evaluation, plus what it used.
struct NearFieldTimings {
  double collect = 0, transfer = 0, kernel = 0, ret = 0;
  double total = 0;                 ///< wall time of evaluate()
  std::size_t device_bytes = 0;     ///< peak device memory allocated
  std::size_t chunks = 0;           ///< number of target chunks (GPU back ends)
};

/// \brief A near-field back end.
class NearFieldBackend {
 public:
  virtual ~NearFieldBackend() = default;
  virtual std::string name() const = 0;
  /// True when evaluate() mostly waits on a device: the solver then runs it on its own host
  /// thread, overlapped with the far field on the CPU.
  virtual bool runs_on_device() const { return false; }
  /// Called once per geometry, before any evaluate().
  virtual void setup(const NearFieldProblem& problem) = 0;
  /// Near-field sums for caller-order charges q (n_sources). Writes (overwrites) caller-order
  /// potential (n_targets) and, when problem.field, fx and fy.
  virtual void evaluate(const double* q, double* potential, double* fx, double* fy,
                        NearFieldTimings* timings) = 0;
};

/// Create a back end by name. Throws BackendUnavailable for an unknown name (listing the valid
/// ones), for a CUDA back end in a build without CUDA ("... was not compiled with CUDA"), or
/// when no CUDA device is found ("back end 'X' needs a CUDA device; none was found").
std::unique_ptr<NearFieldBackend> make_near_field_backend(const std::string& name);

// Constructors of the individual back ends (used by the factory).
std::unique_ptr<NearFieldBackend> make_cpu_backend();
#ifdef MLFMA2D_WITH_CUDA
std::unique_ptr<NearFieldBackend> make_indexing_backend();
std::unique_ptr<NearFieldBackend> make_repetition_backend();
std::unique_ptr<NearFieldBackend> make_shared_backend();
std::unique_ptr<NearFieldBackend> make_repetition_gpu_backend();
/// Number of CUDA devices visible (0 if none or the driver is missing); `why` gets the reason.
int cuda_device_count(std::string* why);
#endif

}  // namespace mlfma2d
