#pragma once
// What the Options mean for one geometry, once for both solvers (the one-process Solver and the
// distributed one): their checks, the expansion terms, the shape of an evaluation, what the back
// end must take, the plan's trade of far work for pairs, the near-field problem's settings, and
// whether an evaluation pins its threads.
#include <cstddef>

#include "farfield/expansions.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "nearfield/backend.hpp"
#include "runtime/placement.hpp"
#include "tree/plan.hpp"

namespace mlfma2d {

/// The relative error double arithmetic attains (measured at most 5.1e-15 at eps 1e-12:
/// results/accuracy.csv, docs/accuracy.md).
constexpr double kAttainableError = 1e-14;

/// Throws InvalidInput for options no solver takes (ct, terms, eps, tree, threads, densities,
/// the kinds of sources, an unknown back-end name).
void validate_options(const Options& opt);
/// The expansion terms p: Options::terms, or derived from eps.
int expansion_terms(const Options& opt);
/// What one evaluation carries and computes.
FarShape far_shape(const Options& opt);
/// What the back end must take beyond charges, potential and field.
BackendNeeds backend_needs(const Options& opt);
/// W boxes and X leaves with at most p/2 points go to the near field (docs/math.md section 4.2).
PlanOptions plan_options(int p);
/// The options' part of a near-field problem: outputs, densities, kinds, threads, device budget.
void set_problem_options(const Options& opt, int threads, NearFieldProblem* problem);
/// Whether evaluations pin their threads: a CPU for each (a core left to a device back end's
/// host thread included), two threads at least beside a device back end, and threads for every
/// core of the process.
bool places_threads(const Placement& placement, int threads, bool device);

}  // namespace mlfma2d
