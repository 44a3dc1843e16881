#pragma once
// What both consumers evaluate: quasi-random (Kronecker) points in the unit square, and the
// relative L2 error of a potential against direct summation.
#include <cmath>
#include <vector>

#include <mlfma2d/mlfma2d.hpp>

struct Points {
  std::vector<double> x, y, q;
};

inline Points kronecker_points(int n, double (*charge)(double)) {
  Points p;
  for (int i = 0; i < n; ++i) {
    p.x.push_back(std::fmod(i * 0.618033988749895, 1.0));
    p.y.push_back(std::fmod(i * 0.754877666246693, 1.0));
    p.q.push_back(charge(i));
  }
  return p;
}

inline double error_against_direct_sum(const Points& p, const mlfma2d::Result& r) {
  std::vector<double> ref;
  mlfma2d::direct_sum(p.x, p.y, p.q, p.x, p.y, {}, &ref, nullptr, nullptr);
  return mlfma2d::error_norms(r.potential, ref).rel_l2;
}
