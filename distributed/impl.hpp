#pragma once
// The distributed solver's state (include/mlfma2d/distributed.hpp): built by solver.cpp, evaluated
// by evaluate.cpp. Internal to the distributed room.
#include <memory>
#include <string>
#include <vector>

#include "distributed/comm.hpp"
#include "distributed/exchange.hpp"
#include "distributed/let.hpp"
#include "distributed/partition.hpp"
#include "distributed/shape.hpp"
#include "mlfma2d/distributed.hpp"
#include "nearfield/backend.hpp"
#include "runtime/placement.hpp"
#include "solver/cost_model.hpp"
#include "solver/far_field.hpp"
#include "solver/strengths.hpp"

namespace mlfma2d {

struct DistributedSolver::Impl {
  Options opt;
  Comm comm;
  int threads = 1, p = 0;
  Placement placement;
  bool self = true;
  std::size_t caller_sources = 0, caller_targets = 0;
  std::string backend;
  TreeStats stats;
  Timings timings;
  DistributedFigures fig;
  AutoChoice choice;
  std::vector<std::string> warnings;

  OwnedPoints own;
  Ghosts ghosts;
  Let let;
  MultipoleRoute multipoles;
  /// The receive item of each own source and target: the routes' arrived, inverted.
  std::vector<std::int64_t> source_of_item, target_of_item;
  std::unique_ptr<FarField> far;
  std::unique_ptr<NearFieldBackend> near;
  EvaluationArrays arrays;  // the far field's outputs in tree (own target) order

  // One evaluation's arrays: the dipoles' moments (caller order), the exchanges' items, the
  // strengths in local order (nd x local sources), the outputs in own order (nd x own targets).
  std::vector<double> moment_x, moment_y;
  std::vector<double> items_out, items_in, ghost_out, ghost_in, mp_out, mp_in;
  std::vector<double> local_q, local_mx, local_my;
  std::vector<double> phi, ex, ey, hxx, hxy;

  Impl(MPI_Comm caller, const std::vector<double>& x, const std::vector<double>& y,
       const std::vector<double>& tx, const std::vector<double>& ty, bool self, const Options& o);
  /// The checks of an evaluation's arrays for n sources and m targets (none needed for none).
  void check(std::size_t n, std::size_t m, const Densities& in, const Outputs& out) const;
  void evaluate(const Densities& in, const Outputs& out);
  void evaluate_owned(const Densities& in, const Outputs& out);
  DistributedPoints owned_points(bool sources);

  // ---- construction (solver.cpp)
  void agree_on_inputs(bool self_evaluation, Traffic* t);
  void resolve_backend();
  CostModel partition_model(Traffic* t);
  void choose_capacity(const LocalPoints& pts, const CostModel& model, Traffic* t, int* ct,
                       int* offset);
  void partition(const LocalPoints& pts, GlobalShape* shape, const CostModel& model, Traffic* t);
  void fill_stats(const GlobalShape& shape, Traffic* t);
  void set_up_near_field();

  // ---- evaluation (evaluate.cpp)
  /// The strengths of n sources as rows (dipoles as moments d v, in moment_x, moment_y).
  Rows strength_rows(const Densities& in, std::size_t n, int team);
  void send_strengths(const Densities& in, int team, Traffic* t);
  void post_ghosts(int team, Traffic* t);
  void receive_ghosts(int team, Traffic* t);
  void send_results(const Outputs& out, int team, Traffic* t);
  int team() const;
  /// Everything between the strengths in the local arrays and the outputs in phi, ex, ...: the
  /// ghosts, the upward pass, the multipoles, the near field, the downward pass.
  void compute();
  /// The evaluation's total and figures.
  void finish(double t0, const Traffic& redistribution);
  Traffic ghost_traffic, multipole_traffic, other_traffic;
};

}  // namespace mlfma2d
