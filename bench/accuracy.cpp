// Accuracy of the whole method against direct summation, as p (or eps) varies: the measurements
// behind terms_for_eps (docs/accuracy.md). Prints a table and writes CSV.
//   mlfma2d_bench_accuracy [N] [out.csv]
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

using namespace mlfma2d;

namespace {

double field_rel_l2(const Result& r, const std::vector<double>& rx, const std::vector<double>& ry) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < rx.size(); ++i) {
    num += std::pow(r.field_x[i] - rx[i], 2) + std::pow(r.field_y[i] - ry[i], 2);
    den += rx[i] * rx[i] + ry[i] * ry[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 20000;
  const std::string csv = argc > 2 ? argv[2] : "accuracy.csv";
  FILE* out = std::fopen(csv.c_str(), "w");
  if (!out) {
    std::perror(csv.c_str());
    return 3;
  }
  std::fprintf(out, "shape,charges,n,eps,terms,levels,rel_l2_potential,rel_l2_field\n");
  std::printf("%-9s %-8s %8s %5s %3s %12s %12s\n", "shape", "charges", "eps", "p", "L", "potential",
              "field");
  for (const std::string shape : {"uniform", "circle", "clusters"}) {
    for (const std::string charges : {"positive", "mixed"}) {
      PointSet p = generate_points(shape, n, 5);
      if (charges == "mixed")
        for (double& q : p.q) q = 2 * q - 1;
      std::vector<double> rp, rx, ry;
      direct_sum(p.x, p.y, p.q, p.x, p.y, {}, &rp, &rx, &ry);
      auto run = [&](double eps, int terms) {
        Options o;
        o.field = true;
        o.eps = eps > 0 ? eps : 1e-6;
        o.terms = terms;
        Solver s(p.x, p.y, o);
        const Result r = s.evaluate(p.q);
        const double ep = error_norms(r.potential, rp).rel_l2, ef = field_rel_l2(r, rx, ry);
        std::printf("%-9s %-8s %8.0e %5d %3d %12.3e %12.3e\n", shape.c_str(), charges.c_str(), eps,
                    s.stats().terms, s.stats().levels, ep, ef);
        std::fprintf(out, "%s,%s,%zu,%g,%d,%d,%.6e,%.6e\n", shape.c_str(), charges.c_str(), n, eps,
                     s.stats().terms, s.stats().levels, ep, ef);
      };
      for (int terms : {4, 8, 12, 16, 20, 24, 28, 32}) run(0, terms);
      for (double eps : {1e-3, 1e-6, 1e-9, 1e-12}) run(eps, 0);
    }
  }
  std::fclose(out);
  std::printf("wrote %s\n", csv.c_str());
  return 0;
}
