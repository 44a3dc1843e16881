#pragma once
// The distributed solver's communicator: a duplicate of the caller's (its messages never meet the
// caller's), every call timed and its bytes counted, errors agreed by every rank (one rank's bad
// input throws on all of them, so none is left waiting in a collective), and the exchanges whose
// pattern is fixed at set-up and repeated every evaluation (point to point, neighbours only).
#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mlfma2d/distributed.hpp"

namespace mlfma2d {

/// \brief Seconds spent in MPI calls (waiting included) and bytes sent and received.
struct Traffic {
  double seconds = 0;
  std::uint64_t sent = 0, received = 0;
  void add(const Traffic& o) {
    seconds += o.seconds;
    sent += o.sent;
    received += o.received;
  }
};

/// The MPI datatype of T (double, float, the integer types, char).
template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  if constexpr (std::is_same_v<T, char>) return MPI_CHAR;
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  if constexpr (std::is_same_v<T, std::uint64_t>) return MPI_UINT64_T;
  static_assert(std::is_arithmetic_v<T>, "mpi_type: an arithmetic type");
}

/// \brief The solver's communicator (MPI_Comm_dup of the caller's) and its collectives, timed
/// into a Traffic.
class Comm {
 public:
  /// Throws InvalidInput when MPI is not initialised (or already finalised).
  explicit Comm(MPI_Comm caller);
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Rank among the ranks of this node (MPI_COMM_TYPE_SHARED) and their number.
  int node_rank() const { return node_rank_; }
  int node_size() const { return node_size_; }

  /// Throws on every rank when any rank's `error` is set: the lowest such rank's error, of its
  /// type (InvalidInput, IoError, BackendUnavailable, CudaError, RuntimeFailure), its message
  /// prefixed with "rank R: " (when there is more than one rank).
  void agree(std::exception_ptr error) const;

  template <class T>
  void allreduce(T* values, std::size_t n, MPI_Op op, Traffic* t) const;
  template <class T>
  void broadcast(T* values, std::size_t n, int root, Traffic* t) const;
  /// Every rank's `mine`, concatenated in rank order; counts[r] = rank r's length.
  template <class T>
  std::vector<T> allgatherv(const std::vector<T>& mine, std::vector<std::int64_t>* counts,
                            Traffic* t) const;
  /// `send` holds counts[r] values for rank r, in rank order; returns what every rank sent this
  /// one, in rank order, with recv_counts[r] from rank r.
  template <class T>
  std::vector<T> alltoallv(const std::vector<T>& send, const std::vector<std::int64_t>& counts,
                           std::vector<std::int64_t>* recv_counts, Traffic* t) const;

 private:
  void alltoallv_bytes(const void* send, const std::vector<std::int64_t>& counts, void* recv,
                       const std::vector<std::int64_t>& recv_counts, MPI_Datatype type,
                       Traffic* t) const;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
};

/// Runs f, then agrees on errors (Comm::agree): a throw on any rank throws on every rank. For
/// local work between collectives only.
template <class F>
void collectively(const Comm& comm, F&& f) {
  collectively(comm.get(), std::forward<F>(f));
}

/// \brief An exchange whose pattern is fixed at set-up and repeated every evaluation: counts[r]
/// values (of `width` doubles each) to rank r and from it, point to point with the ranks that
/// have any (MPI_Isend/MPI_Irecv), so its cost follows the neighbours, not the ranks.
class Exchange {
 public:
  Exchange() = default;
  /// send_counts[r], recv_counts[r]: items to and from rank r; tag: this exchange's own.
  Exchange(const Comm* comm, std::vector<std::int64_t> send_counts,
           std::vector<std::int64_t> recv_counts, int tag);
  ~Exchange();
  Exchange(Exchange&&) noexcept;
  Exchange& operator=(Exchange&&) noexcept;
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  std::int64_t send_items() const { return send_begin_.back(); }
  std::int64_t recv_items() const { return recv_begin_.back(); }
  /// Item offsets of each rank's part: rank r's items are [begin[r], begin[r + 1]).
  const std::vector<std::int64_t>& send_begin() const { return send_begin_; }
  const std::vector<std::int64_t>& recv_begin() const { return recv_begin_; }
  /// Posts the receives and sends of `width` values per item: send (send_items() x width) must
  /// stay unchanged and recv (recv_items() x width) unread until wait(). T: double or std::int64_t.
  template <class T>
  void post(const T* send, T* recv, int width, Traffic* t);
  /// Lets MPI move data (MPI_Testall); true when everything has arrived and left.
  bool progress(Traffic* t);
  /// Blocks until the posted exchange is complete.
  void wait(Traffic* t);

 private:
  void post_bytes(const void* send, void* recv, MPI_Datatype type, std::size_t bytes, int width,
                  Traffic* t);
  const Comm* comm_ = nullptr;
  std::vector<std::int64_t> send_begin_{0}, recv_begin_{0};
  std::vector<MPI_Request> requests_;
  int tag_ = 0;
};

}  // namespace mlfma2d
