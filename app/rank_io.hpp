#pragma once
/// \file rank_io.hpp
/// The files of a run over MPI ranks (app/ranks.hpp; a build with MPI only): each rank's part of
/// the point files -- HDF5 read by every rank as hyperslabs of its contiguous part, CSV read by
/// rank 0 and scattered -- and the result written once, by rank 0, from every rank's part,
/// gathered a chunk at a time through the one atomic writer (mlfma2d::write_result in parts).
/// Every function is collective over MPI_COMM_WORLD, its errors agreed (the same error on every
/// rank).
#include <cstddef>
#include <string>

#include "app/inputs.hpp"
#include "mlfma2d/io.hpp"

namespace mlfma2d::app {

/// \brief This rank's part of a run's points.
struct RankInput {
  LoadedInput in;           ///< the files; in.points: this rank's sources and (separate) targets
  std::size_t sources = 0;  ///< N of the whole run
  std::size_t targets = 0;  ///< M of the whole run's separate targets; 0: the sources
  int densities = 1;
  bool charges = false, dipoles = false, vectors_per_density = false;  ///< the input's
  PointRange source_part, target_part;  ///< this rank's (target_part: of the sources when self)
  bool self() const { return targets == 0; }
  std::size_t all_targets() const { return self() ? sources : targets; }
};

/// Reads this rank's part of the files `names` (resolve_input's; --targets included).
RankInput read_rank_input(const LoadedInput& names, const Progress& progress);

/// Writes the result of every rank's targets to `path` (rank 0; the others send their parts):
/// `result` holds this rank's (nd x its targets each, as DistributedSolver::evaluate gives it),
/// `shape` the whole result's (rank 0's attributes are written).
void write_rank_result(const std::string& path, const ResultShape& shape, const RankInput& in,
                       const Result& result);

}  // namespace mlfma2d::app
