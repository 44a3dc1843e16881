#pragma once
/// \file plots.hpp
/// The sweeps' and the model fit's plots: gnuplot scripts and their data files, rendered to PNG
/// when gnuplot is installed (the scripts stay, for scripts/plot-sweep); the gnuplot helpers
/// app/solve_plot.cpp shares.
#include <iosfwd>
#include <string>
#include <vector>

#include "tuning/model.hpp"

namespace mlfma2d::app {

/// Whether gnuplot is on the PATH.
bool gnuplot_available();
/// `s` quoted for /bin/sh.
std::string shell_quote(const std::string& s);

/// Writes the plots of `rows` (times and phases per back end, speedups, the levels sweep's heat
/// maps; with `fit`, the model against the measurements, and with `scatter` predicted against
/// measured) into `dir` and renders them; returns the PNGs made. When gnuplot is missing the
/// data and scripts are still written, none is rendered, and `note` says so; gnuplot failures
/// are noted on `err`.
std::vector<std::string> make_plots(const std::string& dir,
                                    const std::vector<tuning::SweepRow>& rows,
                                    const tuning::ModelFit* fit, int repeat, bool scatter,
                                    std::ostream& err, std::string* note);

}  // namespace mlfma2d::app
