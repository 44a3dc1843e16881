// The C++ side of python/bench/bench_overhead.py: the same evaluation the Python module runs,
// called from C++. Builds a Solver for generate_points(shape, n, seed), evaluates once (warm-up)
// and prints one JSON line {"n", "levels", "terms"}; then, for each line read from standard
// input, evaluates the charges once more with the pointer overload into arrays allocated once and
// prints one JSON line {"wall", "total"}: steady_clock around the call, and the library's own
// Timings::total. Driven a line at a time, its runs interleave with the Python side's, so that a
// change of load on the machine reaches both alike. Ends at the end of input.
//
//   mlfma2d_bench_overhead --n 100000 --shape uniform --seed 1 --eps 1e-6
//                          [--field] [--threads T] [--backend cpu] [--ct 15] [--levels 0]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"

int main(int argc, char** argv) {
  std::size_t n = 100000;
  std::string shape = "uniform";
  std::uint64_t seed = 1;
  mlfma2d::Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto next = [&] {
      if (!v) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      ++i;
      return std::string(v);
    };
    if (a == "--n")
      n = std::stoul(next());
    else if (a == "--shape")
      shape = next();
    else if (a == "--seed")
      seed = std::stoull(next());
    else if (a == "--eps")
      opt.eps = std::stod(next());
    else if (a == "--threads")
      opt.threads = std::stoi(next());
    else if (a == "--backend")
      opt.backend = next();
    else if (a == "--ct")
      opt.ct = std::stoi(next());
    else if (a == "--levels")
      opt.level_offset = std::stoi(next());
    else if (a == "--field")
      opt.field = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    const mlfma2d::PointSet p = mlfma2d::generate_points(shape, n, seed);
    mlfma2d::Solver solver(p.x, p.y, opt);
    std::vector<double> phi(n), fx(opt.field ? n : 0), fy(opt.field ? n : 0);
    auto evaluate = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      solver.evaluate(p.q.data(), phi.data(), opt.field ? fx.data() : nullptr,
                      opt.field ? fy.data() : nullptr);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    evaluate();  // warm-up, as the Python side does
    std::printf("{\"n\": %zu, \"levels\": %d, \"terms\": %d}\n", n, solver.stats().levels,
                solver.stats().terms);
    std::fflush(stdout);
    std::string line;
    while (std::getline(std::cin, line)) {
      const double wall = evaluate();
      std::printf("{\"wall\": %.9g, \"total\": %.9g}\n", wall, solver.timings().total);
      std::fflush(stdout);
    }
  } catch (const mlfma2d::Error& e) {
    std::fprintf(stderr, "mlfma2d_bench_overhead: %s\n", e.what());
    return 1;
  }
  return 0;
}
