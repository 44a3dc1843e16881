#pragma once
/// \file distributed_figures.hpp
/// The figures of one rank of the distributed solver (DistributedSolver::figures(),
/// mlfma2d/distributed.hpp) and their field table. Apart from distributed.hpp and without MPI, so
/// that a program reports every rank's figures in any build; installed by every build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlfma2d/fields.hpp"

namespace mlfma2d {

/// \brief One rank's figures: its part of the geometry (fixed at construction) and its last
/// evaluation's times and traffic (bytes to and from other ranks).
struct DistributedFigures {
  int rank = 0, ranks = 1;
  int node_rank = 0;  ///< rank among the ranks of its node
  int device = -1;    ///< the GPU its near field runs on; -1 for a CPU back end
  std::size_t caller_sources = 0, caller_targets = 0;  ///< the points this rank passed in
  std::size_t sources = 0, targets = 0;                ///< the points it owns after the partition
  std::size_t ghost_sources = 0;                       ///< remote sources its near and X lists read
  std::size_t leaves = 0;                              ///< leaves it owns
  std::size_t let_boxes = 0;                           ///< boxes of its locally essential tree
  std::size_t multipoles_in = 0;   ///< partial multipoles it receives per evaluation
  std::size_t multipoles_out = 0;  ///< partial multipoles it sends per evaluation
  double predicted = 0;            ///< its leaves' predicted seconds (the partition's model)
  double setup = 0;                ///< construction, seconds
  std::uint64_t setup_sent = 0, setup_received = 0;  ///< construction's bytes
  double evaluation = 0;                             ///< the last evaluation, seconds
  double communication = 0;                          ///< of which in MPI calls (waiting included)
  double work = 0;                                   ///< evaluation less communication
  double redistribute = 0;                ///< strengths to their owners and results back (in MPI)
  double ghost_wait = 0;                  ///< waiting for the ghost sources' strengths
  double multipole_wait = 0;              ///< waiting for the remote multipoles
  std::uint64_t sent = 0, received = 0;   ///< the last evaluation's bytes, all exchanges
  std::uint64_t ghost_sent = 0;           ///< of sent: ghost strengths
  std::uint64_t multipole_sent = 0;       ///< of sent: partial multipoles
  std::uint64_t redistribution_sent = 0;  ///< of sent: strengths to owners, results back
};

/// \brief The ranks' imbalance: the largest work (evaluation less communication) over the mean.
inline double work_imbalance(const std::vector<DistributedFigures>& ranks) {
  if (ranks.empty()) return 1;
  double most = 0, sum = 0;
  for (const DistributedFigures& f : ranks) {
    most = std::max(most, f.work);
    sum += f.work;
  }
  return sum > 0 ? most * double(ranks.size()) / sum : 1;
}

template <>
struct FieldTable<DistributedFigures> {
  template <class F>
  static constexpr void visit(F&& f) {  // NOLINT(readability-function-size): a table
    using S = DistributedFigures;
    f(field("rank", &S::rank, "", "this rank"));
    f(field("ranks", &S::ranks, "", "ranks of the communicator"));
    f(field("node_rank", &S::node_rank, "", "rank among the ranks of its node"));
    f(field("device", &S::device, "", "its GPU, -1: a CPU back end"));
    f(field("caller_sources", &S::caller_sources, "", "sources it passed in"));
    f(field("caller_targets", &S::caller_targets, "", "targets it passed in"));
    f(field("sources", &S::sources, "", "sources it owns after the partition"));
    f(field("targets", &S::targets, "", "targets it owns after the partition"));
    f(field("ghost_sources", &S::ghost_sources, "", "remote sources its lists read"));
    f(field("leaves", &S::leaves, "", "leaves it owns"));
    f(field("let_boxes", &S::let_boxes, "", "boxes of its locally essential tree"));
    f(field("multipoles_in", &S::multipoles_in, "", "partial multipoles received per evaluation"));
    f(field("multipoles_out", &S::multipoles_out, "", "partial multipoles sent per evaluation"));
    f(field("predicted", &S::predicted, "s", "its leaves' predicted time"));
    f(field("setup", &S::setup, "s", "construction"));
    f(field("setup_sent", &S::setup_sent, "B", "construction: bytes sent"));
    f(field("setup_received", &S::setup_received, "B", "construction: bytes received"));
    f(field("evaluation", &S::evaluation, "s", "the last evaluation"));
    f(field("communication", &S::communication, "s", "of which in MPI calls"));
    f(field("work", &S::work, "s", "evaluation less communication"));
    f(field("redistribute", &S::redistribute, "s", "strengths to owners, results back"));
    f(field("ghost_wait", &S::ghost_wait, "s", "waiting for ghost strengths"));
    f(field("multipole_wait", &S::multipole_wait, "s", "waiting for remote multipoles"));
    f(field("sent", &S::sent, "B", "bytes sent by the last evaluation"));
    f(field("received", &S::received, "B", "bytes received by the last evaluation"));
    f(field("ghost_sent", &S::ghost_sent, "B", "of sent: ghost strengths"));
    f(field("multipole_sent", &S::multipole_sent, "B", "of sent: partial multipoles"));
    f(field("redistribution_sent", &S::redistribution_sent, "B",
            "of sent: strengths to owners, results back"));
  }
};

}  // namespace mlfma2d
