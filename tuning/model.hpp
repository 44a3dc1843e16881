#pragma once
/// \file model.hpp
/// The papers' performance model of the near field, its least-squares fit, and the sweep data it
/// is fitted on (`mlfma2d sweep`, `mlfma2d model fit`, `--backend auto --model`). Plain functions
/// over plain structs (no I/O but the CSV and JSON helpers), so each equation and the fit can be
/// checked on synthetic data. One file a job: the equations in model.cpp, the sweep CSV in
/// sweep_csv.cpp, fit quality and least squares in least_squares.cpp, the fit in fit.cpp, the
/// coefficients file in model_file.cpp, the text report in fit_report.cpp.
///
/// Paper 1 = M. Sadeghi and A. Torabi, "Acceleration of Near Field Computation of MLFMA on a
/// single GPU by Generating Redundancy in Data" (2024; equation numbers "eq. N" below are its
/// own); paper 2 = M. Sadeghi, "Modeling the Effect of Data Redundancy on Speedup in MLFMA
/// Near-Field Computation" (2025; its share-weighted form, "paper 2 eq. N"). docs/math.md
/// section 9.
/// X always means a speedup of the restructured back end (repetition) over the baseline
/// (indexing): X = T_indexing / T_repetition, > 1 when repetition is faster.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace mlfma2d::tuning {

/// \brief The papers' two layouts: paper 1's X = T_baseline / T_restructured.
inline constexpr const char* kBaselineBackend = "indexing";
inline constexpr const char* kRestructuredBackend = "repetition";

// ---- The model's inputs: the figures of one tree.

/// \brief What the model needs of a tree: N points, t (most points in a leaf), D (mean points per
/// last-level box, N / 4^(L-1)), the height L and the clustering threshold CT.
struct TreeFigures {
  double n = 0, t = 0, D = 0;
  int levels = 0;
  int ct = 15;
};

/// eq. 2: device bytes of the indexing layout, 40 N + 4^L (2 + 10 t).
double memory_indexing(const TreeFigures& f);
/// eq. 9: device bytes of the repetition layout, 8 N (3 + 27 CT).
double memory_repetition(const TreeFigures& f);
/// Whether back end `backend` copies every near source per target (the repetition layout, built
/// on the host or on the GPU), so that its memory grows as eq. 9.
bool replicates_sources(const std::string& backend);

/// \brief Paper 1's coefficients. Defaults: the paper's GTX 1050 values (sec. 4.1: lambda_RAM
/// mean 108, lambda_GPU about 640; eq. 31: alpha 0.82, beta 0.09, gamma 0.18).
struct Paper1Coefficients {
  double lambda_ram = 108, lambda_gpu = 640;
  double alpha = 0.82, beta = 0.09, gamma = 0.18;
};

/// eq. 14: collection speedup, lambda_RAM / (21.6 t D).
double x_collect_model(const TreeFigures& f, double lambda_ram);
/// eq. 13, the transfer term of eq. 27: 1 / (21.6 D).
double x_transfer_model(const TreeFigures& f);
/// eq. 26: kernel speedup, 55.3 lambda_GPU t / (N D).
double x_kernel_model(const TreeFigures& f, double lambda_gpu);
/// eq. 27 (= eq. 8 with eqs. 13, 14, 26): alpha X_collect + gamma X_transfer + beta X_kernel.
double x_overall_model(const TreeFigures& f, const Paper1Coefficients& c);
/// eq. 33: the overall speedup after raising L by i (t' = t / 4^i, D' = D / 4^i, eq. 32), from the
/// figures f of the tree before the change.
double x_after_level_change(const TreeFigures& f, int i, const Paper1Coefficients& c);
/// eq. 33's shorthand, each modelled term set to 1 at i = 0: 0.82 4^(2i) + 0.18 4^i + 0.09 with
/// the paper's coefficients (13.9 at i = +1: the "more than 13 times" claim).
double x_after_level_change_shorthand(int i, const Paper1Coefficients& c);
/// eq. 29: the largest N with kernel speedup >= 1, 55.3 lambda_GPU t / D.
double kernel_break_even_n(double lambda_gpu, double t, double D);

// ---- Paper 2: Amdahl-style shares.

/// \brief Per-phase quantities in P2P order: collect, transfer, kernel (compute), return (update).
struct Phases {
  double collect = 0, transfer = 0, kernel = 0, ret = 0;
  double sum() const { return collect + transfer + kernel + ret; }
};

/// paper 2 eq. 6: X_p2p = 1 / sum_c (share_c / X_c); shares are the baseline's time fractions
/// (normalised here so they sum to 1). Phases with share 0 do not count.
double x_share_weighted(const Phases& shares, const Phases& speedups);
/// Paper 2's component speedups for the two layouts: collect eq. 14, transfer the data-volume
/// ratio of paper 2 prop. 4 (eq. 12's volumes, times lambda_transfer), kernel eq. 26, update 1
/// (both layouts return the same N doubles).
Phases paper2_component_model(const TreeFigures& f, const Paper1Coefficients& c,
                              double lambda_transfer);

// ---- Sweep data: one CSV row per (configuration, back end).

/// \brief One measured run of a sweep (medians of K repeats unless named otherwise; seconds).
struct SweepRow {
  std::string sweep;  ///< collection, kernel, levels (or the name given)
  long config = 0;    ///< configuration number within the sweep run (pairs back ends)
  std::string backend;
  double n = 0;  ///< points (targets = sources)
  int ct = 15, level_offset = 0, levels_ct = 0, levels = 0;
  int grid_levels = 0;  ///< the levels sweep's L of N = 4^(L-1) (others: = levels)
  double t = 0, D = 0;
  double leaf_boxes = 0, boxes = 0, near_pairs = 0;
  int repeat = 0;
  Phases phase;           ///< per-phase medians
  double near_total = 0;  ///< median of the back end's evaluate() wall time
  double near_total_mean = 0, near_total_min = 0;
  /// The levels sweep: the far field of the same tree (median, the CPU, as a Solver runs it), so
  /// that far + near answers "which depth"; 0 where not measured.
  double far_total = 0;
  double device_bytes = 0, chunks = 0;
  double pairs_per_second = 0;  ///< near_pairs / near_total
  double rel_l2_vs_cpu = 0;
  int threads = 0;
  std::string source;  ///< file it was read from (not a column)

  TreeFigures figures() const { return {n, t, D, levels, ct}; }
};

/// The CSV header, in column order (documented in docs/results.md).
const std::vector<std::string>& sweep_csv_columns();
std::string sweep_csv_header();
std::string sweep_csv_line(const SweepRow& row);
/// Reads a sweep CSV by column name ('#' lines skipped). Throws IoError naming file and row.
std::vector<SweepRow> read_sweep_csv(const std::string& path);

// ---- Fit quality and least squares.

/// \brief How well predictions follow measurements.
struct FitQuality {
  std::size_t n = 0;
  double correlation = 0;          ///< Pearson r of (predicted, measured); NaN if undefined
  double mean_relative_error = 0;  ///< mean |predicted - measured| / |measured|
};
double pearson(const std::vector<double>& a, const std::vector<double>& b);
double mean_relative_error(const std::vector<double>& predicted,
                           const std::vector<double>& measured);
FitQuality fit_quality(const std::vector<double>& predicted, const std::vector<double>& measured);

/// Least squares min |A x - b| (rows of A given row by row, all the same length); columns are
/// scaled first, so terms of very different size fit as well. Throws InvalidInput when there are
/// fewer rows than columns.
std::vector<double> least_squares(const std::vector<std::vector<double>>& a,
                                  const std::vector<double>& b);

// ---- The fit.

/// \brief One configuration measured with both the baseline and the restructured back end.
struct PairedRun {
  SweepRow base, rest;  ///< indexing, repetition
  Phases x;             ///< measured per-phase speedups base / rest
  double x_total = 0;   ///< measured overall speedup: base near_total / rest near_total
  Phases shares;        ///< the baseline's phase shares
};
/// Pairs rows of the same (file, sweep, config); rows of other back ends are ignored.
std::vector<PairedRun> pair_runs(const std::vector<SweepRow>& rows,
                                 const std::string& base = kBaselineBackend,
                                 const std::string& rest = kRestructuredBackend);

/// \brief Predicted near-field seconds of one back end: c0 + c_n N + c_pairs pairs + c_boxes
/// leaves, fitted by non-negative least squares on relative error.
struct TimeModel {
  double intercept = 0, per_point = 0, per_pair = 0, per_leaf_box = 0;
  FitQuality quality;
  double predict(double n, double pairs, double leaf_boxes) const {
    return intercept + per_point * n + per_pair * pairs + per_leaf_box * leaf_boxes;
  }
};
/// Fits rows of one back end; throws InvalidInput with fewer than 2 rows.
TimeModel fit_time_model(const std::vector<SweepRow>& rows);

/// \brief Measured and predicted speedups of one paired run.
struct Prediction {
  const PairedRun* run = nullptr;
  double collect_model = 0;  ///< eq. 14 with the fitted lambda_RAM
  double kernel_model = 0;   ///< eq. 26 with the fitted lambda_GPU
  double eq27 = 0;           ///< overall, eq. 27 with the fitted coefficients
  double eq8 = 0;            ///< overall, eq. 8 on the measured phase speedups (the paper's Fig. 3)
  double paper2 = 0;         ///< overall, paper 2 eq. 6 with measured shares, modelled phases
};

/// \brief The fitted model: coefficients, per-run predictions and their quality.
struct ModelFit {
  std::vector<std::string> sources;
  std::vector<PairedRun> runs;
  std::vector<std::string> training_sweeps;  ///< sweeps alpha, beta, gamma were fitted on
  bool speedup_fitted = false;               ///< enough paired runs for paper 1's coefficients
  std::string note;                          ///< why not, when not
  Paper1Coefficients paper1;  ///< lambdas by averaging (eqs. 14, 26), alpha beta gamma (eq. 27)
  double lambda_ram_min = 0, lambda_ram_max = 0, lambda_gpu_min = 0, lambda_gpu_max = 0;
  double eq8_alpha = 0, eq8_beta = 0, eq8_gamma = 0;  ///< eq. 8 on measured phase speedups
  double lambda_transfer = 1;           ///< paper 2 prop. 4: measured / volume ratio, averaged
  std::vector<Prediction> predictions;  ///< one per run
  /// Quality by quantity ("collect", "kernel", "eq27", "eq8", "paper2") and by sweep ("all" or
  /// a sweep name): quality[quantity][sweep].
  std::map<std::string, std::map<std::string, FitQuality>> quality;
  std::map<std::string, TimeModel> time_models;  ///< by back end
};

/// Fits everything the rows allow: the time models of every back end with >= 2 rows, and paper
/// 1's and 2's speedup models when there are >= 3 paired runs. lambda_RAM comes from the
/// "collection" sweep and lambda_GPU from the "kernel" sweep when present (as in the paper),
/// else from all runs; alpha, beta, gamma from the collection and kernel sweeps when present,
/// else from all runs (the levels sweep then checks the model out of sample).
ModelFit fit_model(const std::vector<SweepRow>& rows);

/// The coefficients file (written by `model fit --output`): JSON text, indented, no final newline.
std::string model_json(const ModelFit& fit);
/// \brief What auto-selection needs back from a coefficients file.
struct ModelCoefficients {
  bool speedup_fitted = false;
  Paper1Coefficients paper1;
  std::map<std::string, TimeModel> time_models;
};
/// Reads a coefficients file; throws IoError naming the file and the missing key.
ModelCoefficients read_model_coefficients(const std::string& path);

/// The fit as a person reads it: coefficients beside the paper's, the predicted-vs-measured
/// table, quality (correlation, mean relative error) of both forms, the time models.
std::string fit_report(const ModelFit& fit);

}  // namespace mlfma2d::tuning
