#pragma once
/// \file auto_select.hpp
/// `--backend auto` and `--levels auto`: time (or predict) every candidate back end and level
/// offset on the actual geometry, then take the fastest. The choice itself is a plain function
/// over candidate times (pick_fastest), so it can be tested without timing anything.
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d::app {

/// \brief One (back end, level offset) the selection considered, with its times per evaluation.
struct Candidate {
  std::string backend;
  int level_offset = 0;
  int levels = 0;      ///< tree height L of this candidate (0 when its tree was not built)
  bool usable = true;  ///< false: not available here, or its tree could not be built
  std::string note;    ///< why it is not usable, or how its times were obtained
  double near_seconds = std::numeric_limits<double>::quiet_NaN();
  double far_seconds = std::numeric_limits<double>::quiet_NaN();
  double total_seconds = std::numeric_limits<double>::quiet_NaN();
};

/// \brief What the choice compares: the near field alone (only the back end changes, the far field
/// is the same) or near + far (the level offset changes both).
enum class Criterion { Near, Total };

/// Index of the fastest usable candidate with a finite, non-negative time by `criterion`, or -1
/// when there is none. Equal times: the smaller |level_offset| wins, then the earlier candidate.
int pick_fastest(const std::vector<Candidate>& candidates, Criterion criterion);

/// \brief The outcome, for the report (text and JSON key "auto").
struct AutoSelection {
  bool done = false;
  bool backend_auto = false, levels_auto = false;
  std::string method;      ///< "calibration" or "model"
  std::string model_path;  ///< coefficients file of the "model" method
  std::string backend;     ///< chosen
  int level_offset = 0;    ///< chosen
  int levels = 0;          ///< L of the chosen tree
  std::string reason;      ///< one or two sentences: what won, by how much, measured how
  std::size_t calibration_points = 0;  ///< points the timings ran on (N unless a window was used)
  double calibration_seconds = 0;      ///< wall time the selection took
  std::vector<Candidate> candidates;
};

/// \brief What to choose.
struct AutoRequest {
  bool backend_auto = false;
  bool levels_auto = false;
  std::string model_path;             ///< fitted coefficients (model fit --output); empty = time
  std::vector<std::string> backends;  ///< candidate back ends; empty = every known one
};

/// Offsets --levels auto tries around the level fixed by CT.
constexpr int kAutoLevelRange = 2;
/// Above this many points the candidates are timed on a window of the domain holding about
/// kCalibrationWindowPoints points (same local density), and their times scaled by N / n_window.
constexpr std::size_t kCalibrateAllUpTo = 2000000;
constexpr std::size_t kCalibrationWindowPoints = 262144;

/// Chooses the back end and/or level offset for `points` with `options` (the fixed values of
/// whatever is not automatic). Progress lines go to `progress` when it is non-null. Throws
/// BackendUnavailable when no candidate can run.
AutoSelection auto_select(const PointSet& points, const Options& options,
                          const AutoRequest& request, std::ostream* progress);

}  // namespace mlfma2d::app
