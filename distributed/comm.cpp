#include "distributed/comm.hpp"

#include <climits>
#include <numeric>

#include "mlfma2d/distributed.hpp"
#include "mlfma2d/errors.hpp"
#include "runtime/timer.hpp"

namespace mlfma2d {
namespace {

// An MPI count: more than INT_MAX values in one message is refused with what to do about it.
int mpi_count(std::int64_t n) {
  if (n > std::int64_t(INT_MAX))
    throw InvalidInput("the distributed solver would send " + std::to_string(n) +
                       " values in one message (MPI counts are int): use more ranks");
  return int(n);
}

// Runs an MPI call, its seconds into t.
template <class F>
void in_mpi(Traffic* t, F&& f) {
  const double t0 = now_seconds();
  f();
  t->seconds += now_seconds() - t0;
}

// The error types agree() carries between ranks, by code.
enum ErrorCode : int { kInvalid = 1, kIo, kBackend, kCuda, kRuntime };

int error_code(std::exception_ptr e, std::string* message) {
  try {
    std::rethrow_exception(e);
  } catch (const CudaError& x) {
    *message = x.what();
    return kCuda;
  } catch (const RuntimeFailure& x) {
    *message = x.what();
    return kRuntime;
  } catch (const InvalidInput& x) {
    *message = x.what();
    return kInvalid;
  } catch (const IoError& x) {
    *message = x.what();
    return kIo;
  } catch (const BackendUnavailable& x) {
    *message = x.what();
    return kBackend;
  } catch (const std::exception& x) {
    *message = x.what();
    return kRuntime;
  } catch (...) {
    *message = "an unknown exception";
    return kRuntime;
  }
}

[[noreturn]] void throw_error(int code, const std::string& m) {
  switch (code) {
    case kInvalid:
      throw InvalidInput(m);
    case kIo:
      throw IoError(m);
    case kBackend:
      throw BackendUnavailable(m);
    case kCuda:
      throw CudaError(m);
    default:
      throw RuntimeFailure(m);
  }
}

}  // namespace

void agree_on_errors(MPI_Comm comm, std::exception_ptr error) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The lowest failing rank (size when none), then its error's type and message from it.
  int first = error ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  std::string message;
  int head[2] = {0, 0};
  if (rank == first) {
    head[0] = error_code(error, &message);
    head[1] = int(message.size());
  }
  MPI_Bcast(head, 2, MPI_INT, first, comm);
  message.resize(std::size_t(head[1]));
  MPI_Bcast(message.data(), head[1], MPI_CHAR, first, comm);
  throw_error(head[0], size > 1 ? "rank " + std::to_string(first) + ": " + message : message);
}

Comm::Comm(MPI_Comm caller) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised)
    throw InvalidInput(
        "the distributed solver needs MPI initialised (MPI_Init_thread) and not yet finalised");
  MPI_Comm_dup(caller, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &node_rank_);
  MPI_Comm_size(node, &node_size_);
  MPI_Comm_free(&node);
}

Comm::~Comm() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (!finalised && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void Comm::agree(std::exception_ptr error) const {
  agree_on_errors(comm_, error);
}

template <class T>
void Comm::allreduce(T* values, std::size_t n, MPI_Op op, Traffic* t) const {
  in_mpi(t, [&] {
    MPI_Allreduce(MPI_IN_PLACE, values, mpi_count(std::int64_t(n)), mpi_type<T>(), op, comm_);
  });
  t->sent += n * sizeof(T);
  t->received += n * sizeof(T);
}

template <class T>
void Comm::broadcast(T* values, std::size_t n, int root, Traffic* t) const {
  in_mpi(t, [&] { MPI_Bcast(values, mpi_count(std::int64_t(n)), mpi_type<T>(), root, comm_); });
  (rank_ == root ? t->sent : t->received) += n * sizeof(T);
}

template <class T>
std::vector<T> Comm::allgatherv(const std::vector<T>& mine, std::vector<std::int64_t>* counts,
                                Traffic* t) const {
  counts->assign(std::size_t(size_), 0);
  std::int64_t n = std::int64_t(mine.size());
  in_mpi(t, [&] { MPI_Allgather(&n, 1, MPI_INT64_T, counts->data(), 1, MPI_INT64_T, comm_); });
  const std::size_t n_ranks = static_cast<std::size_t>(size_);
  std::vector<int> c(n_ranks), at(n_ranks + 1, 0);
  for (int r = 0; r < size_; ++r) {
    c[r] = mpi_count((*counts)[r]);
    at[r + 1] = mpi_count(std::int64_t(at[r]) + c[r]);
  }
  std::vector<T> all(std::size_t(at[size_]));
  in_mpi(t, [&] {
    MPI_Allgatherv(mine.data(), int(n), mpi_type<T>(), all.data(), c.data(), at.data(),
                   mpi_type<T>(), comm_);
  });
  t->sent += mine.size() * sizeof(T) * std::size_t(size_ - 1);
  t->received += (all.size() - mine.size()) * sizeof(T);
  return all;
}

template <class T>
std::vector<T> Comm::alltoallv(const std::vector<T>& send, const std::vector<std::int64_t>& counts,
                               std::vector<std::int64_t>* recv_counts, Traffic* t) const {
  recv_counts->assign(std::size_t(size_), 0);
  in_mpi(t, [&] {
    MPI_Alltoall(counts.data(), 1, MPI_INT64_T, recv_counts->data(), 1, MPI_INT64_T, comm_);
  });
  std::vector<T> recv(
      std::size_t(std::accumulate(recv_counts->begin(), recv_counts->end(), std::int64_t(0))));
  alltoallv_bytes(send.data(), counts, recv.data(), *recv_counts, mpi_type<T>(), t);
  std::uint64_t self_send = std::uint64_t(counts[rank_]);
  t->sent += (send.size() - self_send) * sizeof(T);
  t->received += (recv.size() - std::uint64_t((*recv_counts)[rank_])) * sizeof(T);
  return recv;
}

void Comm::alltoallv_bytes(const void* send, const std::vector<std::int64_t>& counts, void* recv,
                           const std::vector<std::int64_t>& recv_counts, MPI_Datatype type,
                           Traffic* t) const {
  const std::size_t n_ranks = static_cast<std::size_t>(size_);
  std::vector<int> sc(n_ranks), sd(n_ranks), rc(n_ranks), rd(n_ranks);
  std::int64_t s = 0, r = 0;
  for (int k = 0; k < size_; ++k) {
    sc[k] = mpi_count(counts[k]);
    sd[k] = mpi_count(s);
    rc[k] = mpi_count(recv_counts[k]);
    rd[k] = mpi_count(r);
    s += counts[k];
    r += recv_counts[k];
  }
  in_mpi(t, [&] {
    MPI_Alltoallv(send, sc.data(), sd.data(), type, recv, rc.data(), rd.data(), type, comm_);
  });
}

#define MLFMA2D_COMM_TYPES(T)                                                                    \
  template void Comm::allreduce<T>(T*, std::size_t, MPI_Op, Traffic*) const;                     \
  template void Comm::broadcast<T>(T*, std::size_t, int, Traffic*) const;                        \
  template std::vector<T> Comm::allgatherv<T>(const std::vector<T>&, std::vector<std::int64_t>*, \
                                              Traffic*) const;                                   \
  template std::vector<T> Comm::alltoallv<T>(const std::vector<T>&,                              \
                                             const std::vector<std::int64_t>&,                   \
                                             std::vector<std::int64_t>*, Traffic*) const;
MLFMA2D_COMM_TYPES(double)
MLFMA2D_COMM_TYPES(std::int64_t)
MLFMA2D_COMM_TYPES(std::uint64_t)
MLFMA2D_COMM_TYPES(int)
#undef MLFMA2D_COMM_TYPES

// ---- Exchange

Exchange::Exchange(const Comm* comm, std::vector<std::int64_t> send_counts,
                   std::vector<std::int64_t> recv_counts, int tag)
    : comm_(comm), tag_(tag) {
  const int n = comm->size();
  send_begin_.assign(std::size_t(n) + 1, 0);
  recv_begin_.assign(std::size_t(n) + 1, 0);
  for (int r = 0; r < n; ++r) {
    send_begin_[r + 1] = send_begin_[r] + send_counts[r];
    recv_begin_[r + 1] = recv_begin_[r] + recv_counts[r];
  }
}

Exchange::~Exchange() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  // An exchange left posted by an error: its requests end before the buffers go.
  if (!finalised && !requests_.empty())
    MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

Exchange::Exchange(Exchange&& o) noexcept {
  *this = std::move(o);
}

Exchange& Exchange::operator=(Exchange&& o) noexcept {
  comm_ = o.comm_;
  send_begin_ = std::move(o.send_begin_);
  recv_begin_ = std::move(o.recv_begin_);
  requests_ = std::move(o.requests_);
  o.requests_.clear();
  tag_ = o.tag_;
  return *this;
}

template <class T>
void Exchange::post(const T* send, T* recv, int width, Traffic* t) {
  post_bytes(send, recv, mpi_type<T>(), sizeof(T), width, t);
}
template void Exchange::post<double>(const double*, double*, int, Traffic*);
template void Exchange::post<std::int64_t>(const std::int64_t*, std::int64_t*, int, Traffic*);

void Exchange::post_bytes(const void* send, void* recv, MPI_Datatype type, std::size_t bytes,
                          int width, Traffic* t) {
  const int n = comm_->size(), me = comm_->rank();
  const auto* s = static_cast<const char*>(send);
  auto* r = static_cast<char*>(recv);
  const std::size_t item = bytes * std::size_t(width);
  in_mpi(t, [&] {
    // Receives first: a message that arrives finds its buffer (no unexpected-message copy).
    for (int k = 0; k < n; ++k) {
      const std::int64_t c = recv_begin_[k + 1] - recv_begin_[k];
      if (c == 0) continue;
      requests_.emplace_back();
      MPI_Irecv(r + std::size_t(recv_begin_[k]) * item, mpi_count(c * width), type, k, tag_,
                comm_->get(), &requests_.back());
      if (k != me) t->received += std::uint64_t(c) * item;
    }
    for (int k = 0; k < n; ++k) {
      const std::int64_t c = send_begin_[k + 1] - send_begin_[k];
      if (c == 0) continue;
      requests_.emplace_back();
      MPI_Isend(s + std::size_t(send_begin_[k]) * item, mpi_count(c * width), type, k, tag_,
                comm_->get(), &requests_.back());
      if (k != me) t->sent += std::uint64_t(c) * item;
    }
  });
}

bool Exchange::progress(Traffic* t) {
  if (requests_.empty()) return true;
  int done = 0;
  in_mpi(t,
         [&] { MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE); });
  if (done) requests_.clear();
  return done != 0;
}

void Exchange::wait(Traffic* t) {
  if (requests_.empty()) return;
  in_mpi(t, [&] { MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE); });
  requests_.clear();
}

}  // namespace mlfma2d
