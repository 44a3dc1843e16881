#include "solver/options.hpp"

#include <algorithm>

namespace mlfma2d {

void validate_options(const Options& opt) {
  if (opt.ct < 0)
    throw InvalidInput("CT must be >= 1 (0 = chosen automatically), got " + std::to_string(opt.ct));
  if (opt.terms < 0 || opt.terms > kMaxTerms)
    throw InvalidInput("terms must be in 1.." + std::to_string(kMaxTerms) +
                       " (0 = from eps), got " + std::to_string(opt.terms));
  if (opt.terms == 0) terms_for_eps(opt.eps);  // throws for eps outside (0, 1)
  parse_tree_kind(opt.tree);                   // throws for an unknown tree
  if (opt.threads < 0)
    throw InvalidInput("threads must be >= 1 (0 = default), got " + std::to_string(opt.threads));
  if (opt.densities < 1 || opt.densities > kMaxDensities)
    throw InvalidInput("densities must be in 1.." + std::to_string(kMaxDensities) + ", got " +
                       std::to_string(opt.densities));
  if (!opt.charges && !opt.dipoles)
    throw InvalidInput("the sources carry neither charges nor dipoles: set charges or dipoles");
  // An unknown back-end name fails here, before any work (making it throws, naming the valid
  // ones); whether it can run here is asked when it is made.
  const std::vector<std::string> names = near_field_backends();
  if (opt.backend != "auto" && std::find(names.begin(), names.end(), opt.backend) == names.end())
    make_near_field_backend(opt.backend);
}

int expansion_terms(const Options& opt) {
  return opt.terms > 0 ? opt.terms : terms_for_eps(opt.eps);
}

FarShape far_shape(const Options& opt) {
  return {opt.densities, opt.charges, opt.dipoles, opt.field, opt.hessian};
}

BackendNeeds backend_needs(const Options& opt) {
  return BackendNeeds{opt.dipoles, opt.hessian};
}

PlanOptions plan_options(int p) {
  // A pair (a log and a few flops) costs about what two terms of an M2P or P2L do. The same for
  // every back end, so that back ends differ only in how they sum the same pairs.
  PlanOptions o;
  o.p2p_below = std::max(1, p / 2);
  return o;
}

void set_problem_options(const Options& opt, int threads, NearFieldProblem* problem) {
  problem->field = opt.field;
  problem->hessian = opt.hessian;
  problem->densities = opt.densities;
  problem->charges = opt.charges;
  problem->dipoles = opt.dipoles;
  problem->threads = threads;
  problem->gpu_memory = opt.gpu_memory;
  problem->chunk_targets = opt.chunk_targets;
}

bool places_threads(const Placement& placement, int threads, bool device) {
  return placement.fits(threads) && threads >= placement.cores() && (!device || threads >= 2);
}

}  // namespace mlfma2d
