#pragma once
// The CUDA device as the registry and the tools ask for it, in plain C++. A CUDA build defines
// these in nearfield/cuda/common/device.cpp, a build without CUDA in nearfield/no_cuda.cpp (the
// CUDA back ends' factories there too), so that no file outside nearfield/cuda/ asks which build
// it is in.
#include <cstddef>
#include <memory>
#include <string>

namespace mlfma2d {

class NearFieldBackend;
struct ChargeShape;

namespace device {

/// Whether this build has the CUDA back ends.
bool compiled();
/// Whether a CUDA device can be used here; when not, `why` (if not null) gets the driver's
/// reason ("" in a build without CUDA). Asked once per process: the answer does not change, and
/// the driver's complaint is said once.
bool usable(std::string* why);
/// CUDA devices this process sees (0 without CUDA, a driver or a device).
int count();
/// Makes device `index` the one this process's CUDA work runs on, on every thread: the registry
/// applies it (use_selected) before each start, set-up and evaluation, as CUDA's current device
/// is a thread's own. For processes that share a node's GPUs (the distributed solver's ranks).
/// Throws InvalidInput for an index outside 0..count()-1; without CUDA it does nothing.
void select(int index);
/// The selected device made the calling thread's current one; nothing when none was selected.
void use_selected();
/// The selected device, -1 when none was.
int selected();
/// Starts the CUDA runtime's context on the current device (cuda::start_runtime). Throws
/// CudaError; without CUDA it does nothing.
void start_runtime();
/// "NVIDIA H100 80GB HBM3 (sm_90)", or "" when no device can be asked.
std::string name();
/// A resident back end's pinned charge buffers for this shape, made ahead of its set-up
/// (cuda::ChargeIo::reserve). Throws what the allocation throws.
void reserve_charge_buffers(const ChargeShape& shape);
/// Frees the reserved buffers nobody took.
void release_reserved() noexcept;

}  // namespace device

// The CUDA back ends' factories, one per folder under nearfield/cuda/ (without CUDA: never
// called, since the registry finds no device; they throw BackendUnavailable).
std::unique_ptr<NearFieldBackend> make_indexing_backend();
std::unique_ptr<NearFieldBackend> make_repetition_backend();
std::unique_ptr<NearFieldBackend> make_shared_backend();
std::unique_ptr<NearFieldBackend> make_repetition_gpu_backend();

}  // namespace mlfma2d
