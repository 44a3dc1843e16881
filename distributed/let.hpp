#pragma once
// A rank's part of the geometry (docs/distributed.md, "The locally essential tree"): its own
// points, moved to it from the ranks that held them; the ghost sources (remote leaves its near
// and X lists read), fetched once with their coordinates; and its locally essential tree -- the
// boxes of the global shape that its work touches (its own leaves and their ancestors, the boxes
// of its interaction lists, and their ancestors), with the sources in one local array (global
// Morton order: the ghosts of lower ranks, its own, the ghosts of higher ranks) and its plan,
// whose lists equal the global plan's for its targets.
#include <cstdint>
#include <vector>

#include "distributed/comm.hpp"
#include "distributed/partition.hpp"
#include "distributed/shape.hpp"
#include "tree/plan.hpp"
#include "tree/tree.hpp"

namespace mlfma2d {

/// \brief How one point set of this rank reached the owners of its points: the exchange each
/// evaluation repeats for the strengths and reverses for the results.
struct Route {
  Exchange to_owners;           ///< item j of this rank's sorted points to its owner
  Exchange from_owners;         ///< the reverse: an owner's item back to this rank
  Array<std::int64_t> caller;   ///< send item j is the caller's point caller[j]
  Array<std::int64_t> arrived;  ///< own point i arrived as receive item arrived[i]
};

/// \brief This rank's own points (its leaves' points, in the global Morton order) and routes.
struct OwnedPoints {
  std::int64_t source_offset = 0;  ///< global position of its first source
  Array<double> sx, sy;            ///< own sources
  Array<double> tx, ty;            ///< own targets (empty when self: the sources)
  Route sources, targets;          ///< targets unused when self: the sources' route
  std::size_t n_sources() const { return sx.size(); }
};

/// Every rank's points sent to the owners of their leaves (collective). `points` keeps its
/// caller indices (in the routes); its coordinates are no longer needed after.
OwnedPoints distribute_points(const Comm& comm, const LocalPoints& points, const GlobalShape& shape,
                              const Partition& part, int threads, Traffic* t);

/// \brief The remote sources this rank's near and X lists read.
struct Ghosts {
  std::vector<std::int64_t> leaves;  ///< their leaves (global Morton index), ascending
  Array<double> x, y;                ///< their coordinates, in the global Morton order
  std::int64_t before = 0;           ///< those of lower ranks: before the own sources locally
  Exchange exchange;                 ///< their strengths, every evaluation
  Array<std::int64_t> send_index;    ///< own sources sent to other ranks' ghosts, in send order
  std::size_t size() const { return x.size(); }
};

/// The ghost sources of `plan` (this rank's plan on the restricted shape): requested from their
/// owners, who answer with their coordinates (collective).
Ghosts fetch_ghosts(const Comm& comm, const Tree& shape, const Plan& plan, const Partition& part,
                    const OwnedPoints& own, Traffic* t);

/// \brief This rank's locally essential tree and its plan, in local positions: sources are the
/// local array (ghosts before, own, ghosts after), targets the own targets; only the own leaves
/// are the tree's leaves (P2M and L2P run on them alone).
struct Let {
  Tree tree;
  Plan plan;
  std::int64_t own_begin = 0;  ///< own sources at local positions [own_begin, + own)
};

/// The locally essential tree of rank `rank`'s leaves on the restricted shape (whose plan is
/// `plan`). Throws RuntimeFailure if its plan differs from `plan` (a box missing from it).
Let build_let(const Tree& shape, const Plan& plan, const Partition& part, int rank,
              OwnedPoints* own, Ghosts* ghosts, int threads, const PlanOptions& options);

/// \brief The multipoles this rank receives (the partial multipoles other ranks hold of the
/// boxes of its V and W lists that it does not hold whole) and sends, every evaluation.
struct MultipoleRoute {
  Exchange exchange;
  std::vector<BoxRef> send_box;  ///< the LET's boxes whose multipoles it sends, in send order
  std::vector<BoxRef> recv_box;  ///< the LET's boxes each received multipole adds to
};

/// The multipole requests, exchanged once (collective).
MultipoleRoute route_multipoles(const Comm& comm, const Let& let, const Tree& shape,
                                const Partition& part, Traffic* t);

}  // namespace mlfma2d
