// The fit as a person reads it (tuning/model.hpp): coefficients beside the paper's, predicted
// against measured, the quality of each form, the time models.
#include <string>
#include <utility>
#include <vector>

#include "runtime/text.hpp"
#include "tuning/model.hpp"

namespace mlfma2d::tuning {

std::string fit_report(const ModelFit& fit) {
  std::string out;
  out += format("model fit: %zu configuration(s) measured with both indexing and repetition\n",
                fit.runs.size());
  out += "  from " + join(fit.sources, ", ") + "\n";
  if (!fit.speedup_fitted) {
    out += "speedup model not fitted: " + fit.note + "\n";
  } else {
    const Paper1Coefficients& c = fit.paper1;
    const Paper1Coefficients paper;
    out += "\ncoefficients (paper 1)                 fitted        paper (GTX 1050)\n";
    out += format("  lambda_RAM  (eq. 14, mean)   %14.4g        %g (75 .. 180)\n", c.lambda_ram,
                  paper.lambda_ram);
    out += format("              range            %6.3g .. %-6.3g\n", fit.lambda_ram_min,
                  fit.lambda_ram_max);
    out += format("  lambda_GPU  (eq. 26, mean)   %14.4g        ~%g\n", c.lambda_gpu,
                  paper.lambda_gpu);
    out += format("              range            %6.3g .. %-6.3g\n", fit.lambda_gpu_min,
                  fit.lambda_gpu_max);
    out += format("  alpha (collect,  eq. 27)     %14.4g        %g\n", c.alpha, paper.alpha);
    out += format("  beta  (kernel,   eq. 27)     %14.4g        %g\n", c.beta, paper.beta);
    out += format("  gamma (transfer, eq. 27)     %14.4g        %g\n", c.gamma, paper.gamma);
    out += "  (alpha, beta, gamma by least squares on sweeps: " + join(fit.training_sweeps, ", ") +
           ")\n";
    out += format("  eq. 8 on measured phase speedups: alpha %.4g, beta %.4g, gamma %.4g\n",
                  fit.eq8_alpha, fit.eq8_beta, fit.eq8_gamma);
    out += format("  paper 2 transfer: lambda_transfer %.4g (measured / eq. 12 volume ratio)\n",
                  fit.lambda_transfer);

    out +=
        "\npredicted vs measured speedup of repetition over indexing (X > 1: repetition faster)\n";
    out += format("%-10s %9s %3s %4s %6s %6s | %8s %8s | %8s %8s | %8s %8s %8s %8s\n", "sweep", "N",
                  "L", "t", "D", "", "collect", "eq.14", "kernel", "eq.26", "total", "eq.27",
                  "eq.8", "paper2");
    for (const Prediction& p : fit.predictions) {
      const SweepRow& r = p.run->base;
      out += format(
          "%-10s %9.0f %3d %4.0f %6.3g %+6d | %8.3g %8.3g | %8.3g %8.3g | %8.3g %8.3g "
          "%8.3g %8.3g\n",
          r.sweep.c_str(), r.n, r.levels, r.t, r.D, r.level_offset, p.run->x.collect,
          p.collect_model, p.run->x.kernel, p.kernel_model, p.run->x_total, p.eq27, p.eq8,
          p.paper2);
    }
    out += "\nquality               sweeps        correlation   mean rel. error      n\n";
    const std::vector<std::pair<const char*, const char*>> quantities = {
        {"collect", "X_collect eq. 14"},
        {"kernel", "X_kernel eq. 26"},
        {"eq27", "total eq. 27"},
        {"eq8", "total eq. 8"},
        {"paper2", "total paper 2"}};
    for (const auto& [key, label] : quantities) {
      const auto it = fit.quality.find(key);
      if (it == fit.quality.end()) continue;
      for (const auto& [sweep, q] : it->second) {
        out += format("  %-19s %-12s %12.3f %16.1f%% %6zu\n", label, sweep.c_str(), q.correlation,
                      100 * q.mean_relative_error, q.n);
      }
    }
  }
  if (!fit.time_models.empty()) {
    out += "\ntime models (near-field seconds = c0 + c1 N + c2 pairs + c3 leaf boxes)\n";
    out += format("  %-12s %11s %11s %11s %11s %8s %9s %5s\n", "back end", "c0 (s)", "c1 (s/pt)",
                  "c2 (s/pair)", "c3 (s/box)", "corr.", "rel. err", "n");
    for (const auto& [backend, m] : fit.time_models) {
      out += format("  %-12s %11.3e %11.3e %11.3e %11.3e %8.3f %8.1f%% %5zu\n", backend.c_str(),
                    m.intercept, m.per_point, m.per_pair, m.per_leaf_box, m.quality.correlation,
                    100 * m.quality.mean_relative_error, m.quality.n);
    }
  }
  return out;
}

}  // namespace mlfma2d::tuning
