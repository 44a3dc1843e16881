// mlfma2d_bench_mpi: the distributed solver's scaling (docs/distributed.md), one configuration per
// run under mpirun: every rank generates the same global point set and passes its contiguous
// share of the generator's order (points from everywhere: the solver moves them to their
// owners), builds the DistributedSolver, and evaluates --repeat times. Rank 0 prints one table row
// per evaluation and a summary -- time per evaluation (the slowest rank's), communication time,
// the work's imbalance (max/mean of evaluation less communication), bytes per evaluation by kind
// -- and with --json FILE writes every rank's figures (their field table) with the summary.
// --layout: "caller" evaluates in the order the ranks passed the points (the strengths go to
// their owners and the results come back: bytes that follow the points), "owned" in the owned
// order (evaluate_owned: the exchanges of ghosts and multipoles alone), "both" (the default)
// alternates the two.
//
//   mpirun -np 4 mlfma2d_bench_mpi --n 1000000 --shape uniform --backend cpu --repeat 5
//   mpirun -np 8 mlfma2d_bench_mpi --per-rank 1000000 ...    (weak scaling: N = ranks x per-rank)
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mlfma2d/distributed.hpp"
#include "mlfma2d/io.hpp"

namespace {

using json = nlohmann::json;
using mlfma2d::DistributedFigures;

// The solver's options as the command line sets them: the library's defaults but the back end.
mlfma2d::Options default_options() {
  mlfma2d::Options o;
  o.backend = "cpu";
  return o;
}

struct Args {
  std::size_t n = 1000000, per_rank = 0;
  std::string shape = "uniform", json;
  mlfma2d::Options opt = default_options();
  int repeat = 5;
  bool verify = false;
  std::string layout = "both";
};

[[noreturn]] void usage(const std::string& why, int rank) {
  if (rank == 0)
    std::fprintf(stderr,
                 "mlfma2d_bench_mpi: %s\n"
                 "usage: mpirun -np P mlfma2d_bench_mpi [--n N | --per-rank N] [--shape S]\n"
                 "         [--backend B] [--tree T] [--eps X] [--ct C] [--threads T]\n"
                 "         [--densities ND] [--field] [--repeat K] [--layout caller|owned|both]\n"
                 "         [--verify] [--json FILE]\n",
                 why.c_str());
  MPI_Finalize();
  std::exit(2);
}

Args parse(int argc, char** argv, int rank) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") usage("the distributed solver's time and traffic", rank);
    if (k == "--field") {
      a.opt.field = true;
      continue;
    }
    if (k == "--verify") {
      a.verify = true;
      continue;
    }
    if (i + 1 >= argc) usage("missing value after " + k, rank);
    const std::string v = argv[++i];
    try {
      if (k == "--n")
        a.n = std::size_t(std::stod(v));
      else if (k == "--per-rank")
        a.per_rank = std::size_t(std::stod(v));
      else if (k == "--shape")
        a.shape = v;
      else if (k == "--backend")
        a.opt.backend = v;
      else if (k == "--tree")
        a.opt.tree = v;
      else if (k == "--eps")
        a.opt.eps = std::stod(v);
      else if (k == "--ct")
        a.opt.ct = std::stoi(v);
      else if (k == "--threads")
        a.opt.threads = std::stoi(v);
      else if (k == "--densities")
        a.opt.densities = std::stoi(v);
      else if (k == "--repeat")
        a.repeat = std::max(1, std::stoi(v));
      else if (k == "--json")
        a.json = v;
      else if (k == "--layout")
        a.layout = v;
      else
        usage("unknown option " + k, rank);
    } catch (const std::logic_error&) {
      usage("bad value for " + k + ": " + v, rank);
    }
  }
  if (a.layout != "caller" && a.layout != "owned" && a.layout != "both")
    usage("--layout takes caller, owned or both, not " + a.layout, rank);
  return a;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// One evaluation's summary over the ranks, from every rank's figures (rank 0).
json summary(const std::vector<DistributedFigures>& all) {
  double slowest = 0, comm_max = 0, comm_mean = 0;
  std::uint64_t sent = 0, ghost = 0, mp = 0, redistribution = 0, most = 0;
  for (const DistributedFigures& f : all) {
    slowest = std::max(slowest, f.evaluation);
    comm_max = std::max(comm_max, f.communication);
    comm_mean += f.communication / double(all.size());
    sent += f.sent;
    ghost += f.ghost_sent;
    mp += f.multipole_sent;
    redistribution += f.redistribution_sent;
    most = std::max<std::uint64_t>(most, f.sent);
  }
  return {{"evaluation", slowest},
          {"communication_max", comm_max},
          {"communication_mean", comm_mean},
          {"imbalance", mlfma2d::work_imbalance(all)},
          {"bytes_sent", sent},
          {"ghost_bytes", ghost},
          {"multipole_bytes", mp},
          {"redistribution_bytes", redistribution},
          {"most_bytes_one_rank", most}};
}

json figures_json(const DistributedFigures& f) {
  json j;
  mlfma2d::for_each_field(f, [&](const auto& field, const auto& v) { j[field.name] = v; });
  return j;
}

// One configuration: the global set, this rank's share, the solver, the evaluations.
class Run {
 public:
  Run(const Args& a, int rank, int ranks)
      : a_(a),
        rank_(rank),
        ranks_(ranks),
        n_(a.per_rank > 0 ? a.per_rank * std::size_t(ranks) : a.n),
        pts_(mlfma2d::generate_points(a.shape, n_, 1)),
        lo_(n_ * std::size_t(rank) / std::size_t(ranks)),
        hi_(n_ * std::size_t(rank + 1) / std::size_t(ranks)) {
    const std::vector<double> x(pts_.x.begin() + lo_, pts_.x.begin() + hi_),
        y(pts_.y.begin() + lo_, pts_.y.begin() + hi_);
    for (int d = 0; d < a.opt.densities; ++d)
      q_.insert(q_.end(), pts_.q.begin() + lo_, pts_.q.begin() + hi_);
    MPI_Barrier(MPI_COMM_WORLD);
    ds_ = std::make_unique<mlfma2d::DistributedSolver>(MPI_COMM_WORLD, x, y, a.opt);
    // The owned order's strengths: the generator's charges of the points this rank owns.
    const mlfma2d::DistributedPoints owned = ds_->owned_sources();
    for (int d = 0; d < a.opt.densities; ++d)
      for (std::size_t i = 0; i < owned.x.size(); ++i) {
        const std::size_t from = n_ * std::size_t(owned.rank[i]) / std::size_t(ranks);
        owned_q_.push_back(pts_.q[from + std::size_t(owned.index[i])]);
      }
    // + 1: a rank that owns no point still passes arrays (self-evaluation: targets = sources).
    owned_phi_.resize(owned_q_.size() + 1);
    owned_fx_.resize(owned_phi_.size());
    owned_fy_.resize(owned_phi_.size());
  }

  void header() const {
    const mlfma2d::TreeStats& st = ds_->stats();
    std::printf(
        "mlfma2d_bench_mpi: %d ranks, N = %zu %s, back end %s, CT %d, L = %d, p = %d, "
        "leaves %zu, set-up %.3f s\n",
        ranks_, n_, a_.shape.c_str(), ds_->auto_choice().backend.c_str(), st.ct, st.levels,
        st.terms, st.leaf_boxes, ds_->figures().setup);
    std::printf("%4s %-7s %10s %10s %10s %9s %12s %12s %12s %12s\n", "eval", "layout", "time_s",
                "comm_max_s", "comm_mean", "imbalance", "sent_MB", "ghost_MB", "multipole_MB",
                "redist_MB");
  }

  // One evaluation in `layout`; on rank 0 its row and summary.
  void evaluate(int k, const std::string& layout) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (layout == "caller") {
      result_ = ds_->evaluate(q_);
    } else {
      mlfma2d::Densities in;
      in.charges = owned_q_.data();
      ds_->evaluate_owned(in,
                          mlfma2d::Outputs{owned_phi_.data(), owned_fx_.data(), owned_fy_.data()});
    }
    last_ = ds_->gather_figures(0);
    if (rank_ != 0) return;
    json s = summary(last_);
    s["layout"] = layout;
    times_[layout].push_back(s["evaluation"].get<double>());
    runs_.push_back(s);
    auto mb = [&](const char* key) { return s[key].get<double>() / 1e6; };
    std::printf("%4d %-7s %10.4f %10.4f %10.4f %9.3f %12.3f %12.3f %12.3f %12.3f\n", k,
                layout.c_str(), s["evaluation"].get<double>(), s["communication_max"].get<double>(),
                s["communication_mean"].get<double>(), s["imbalance"].get<double>(),
                mb("bytes_sent"), mb("ghost_bytes"), mb("multipole_bytes"),
                mb("redistribution_bytes"));
  }

  // The relative L2 error of the potential at every 1000th point against direct sums, over
  // every rank (the caller's order's result: evaluated once more if none was).
  double verify() {
    if (result_.potential.empty()) result_ = ds_->evaluate(q_);
    std::vector<std::size_t> which;
    for (std::size_t i = lo_; i < hi_; i += 1000) which.push_back(i);
    std::vector<double> ref;
    mlfma2d::direct_sum(pts_.x, pts_.y, pts_.q, pts_.x, pts_.y, which, &ref, nullptr, nullptr);
    double s[2] = {0, 0};
    for (std::size_t k = 0; k < which.size(); ++k) {
      const double d = result_.potential[which[k] - lo_] - ref[k];
      s[0] += d * d;
      s[1] += ref[k] * ref[k];
    }
    MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return std::sqrt(s[0] / s[1]);
  }

  // Rank 0: the medians, and the JSON.
  void report(double error) {
    std::printf("median time per evaluation:");
    for (const auto& [layout, t] : times_) std::printf(" %s %.4f s", layout.c_str(), median(t));
    if (error >= 0) std::printf(", relative L2 error of the potential %.2e", error);
    std::printf("\n");
    if (a_.json.empty()) return;
    const mlfma2d::TreeStats& st = ds_->stats();
    json j = {{"ranks", ranks_},       {"n", n_},
              {"shape", a_.shape},     {"backend", ds_->auto_choice().backend},
              {"ct", st.ct},           {"levels", st.levels},
              {"terms", st.terms},     {"leaves", st.leaf_boxes},
              {"eps", a_.opt.eps},     {"densities", a_.opt.densities},
              {"field", a_.opt.field}, {"threads", a_.opt.threads},
              {"evaluations", runs_}};
    for (const auto& [layout, t] : times_) j["median_" + layout] = median(t);
    j["median_evaluation"] = median(times_.count("owned") ? times_["owned"] : times_["caller"]);
    if (error >= 0) j["error"] = error;
    j["ranks_figures"] = json::array();
    for (const DistributedFigures& f : last_) j["ranks_figures"].push_back(figures_json(f));
    mlfma2d::write_text_file(a_.json, j.dump(2) + "\n");
  }

 private:
  const Args& a_;
  int rank_, ranks_;
  std::size_t n_;
  mlfma2d::PointSet pts_;
  std::size_t lo_, hi_;
  std::vector<double> q_, owned_q_, owned_phi_, owned_fx_, owned_fy_;
  std::unique_ptr<mlfma2d::DistributedSolver> ds_;
  mlfma2d::Result result_;
  std::vector<DistributedFigures> last_;
  json runs_ = json::array();
  std::map<std::string, std::vector<double>> times_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Args a = parse(argc, argv, rank);
  int status = 0;
  try {
    Run run(a, rank, ranks);
    if (rank == 0) run.header();
    std::vector<std::string> layouts = {a.layout};
    if (a.layout == "both") layouts = {"owned", "caller"};
    for (int k = 0; k < a.repeat; ++k)
      for (const std::string& layout : layouts) run.evaluate(k, layout);
    const double error = a.verify ? run.verify() : -1;
    if (rank == 0) run.report(error);
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "mlfma2d_bench_mpi: %s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
