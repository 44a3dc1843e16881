#pragma once
// Shared by the file fuzz targets: each input is written to one temporary file per process (the
// readers take a path), and any mlfma2d::Error is an accepted outcome. Anything else -- a crash,
// another exception type, a sanitizer report, a hang -- is a finding (libFuzzer stops on it).
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "mlfma2d/io.hpp"

namespace mlfma2d::fuzz {

inline void check(bool ok) {
  if (!ok) std::abort();  // a reader accepted data that break its own contract
}

inline bool all_finite(const std::vector<double>& v) {
  for (double d : v) {
    if (!std::isfinite(d)) return false;
  }
  return true;
}

// Runs the three readers on `path`. What they accept must satisfy their contracts (equal
// lengths, at least one point, finite values) and the format's own (`points`, `result`);
// rejecting the input with an mlfma2d::Error is fine.
inline void read_all(const std::string& path, const std::function<void(const PointSet&)>& points,
                     const std::function<void(const ResultFile&)>& result) {
  try {
    const PointSet p = read_points(path);
    // nd densities of charges and/or dipoles, nd x N each (docs/files.md).
    const std::size_t n = p.x.size(), nd = std::size_t(p.densities);
    check(!p.x.empty() && n == p.y.size() && p.densities >= 1 && p.densities <= 1024);
    check(p.has_charges() || p.has_dipoles());
    check(!p.has_charges() || p.q.size() == nd * n);
    check(!p.has_dipoles() ||
          (p.dipole_strengths.size() == nd * n &&
           p.dipole_vectors.size() == 2 * n * (p.vectors_per_density ? nd : 1)));
    check(p.tx.size() == p.ty.size());
    check(all_finite(p.x) && all_finite(p.y) && all_finite(p.q));
    check(all_finite(p.dipole_strengths) && all_finite(p.dipole_vectors));
    check(all_finite(p.tx) && all_finite(p.ty));
    points(p);
  } catch (const Error&) {
  }
  try {
    std::vector<double> tx, ty;
    read_targets(path, &tx, &ty);
    check(!tx.empty() && tx.size() == ty.size() && all_finite(tx) && all_finite(ty));
  } catch (const Error&) {
  }
  try {
    const ResultFile r = read_result(path);
    check(r.densities >= 1 && r.potential.size() % std::size_t(r.densities) == 0);
    check(r.field_x.size() == r.field_y.size());
    check(r.field_x.empty() || r.field_x.size() == r.potential.size());
    check(r.hessian_xx.empty() ||
          (r.hessian_xx.size() == r.potential.size() && r.hessian_xy.size() == r.potential.size() &&
           r.hessian_yy.size() == r.potential.size()));
    result(r);
  } catch (const Error&) {
  }
}

// $TMPDIR/mlfma2d-fuzz-<pid><suffix>, removed when the process exits normally.
inline const std::string& temp_path(const char* suffix) {
  static const std::string path = [&] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/mlfma2d-fuzz-" +
                    std::to_string(::getpid()) + suffix;
    return p;
  }();
  static const bool registered = [] {
    std::atexit([] { std::remove(path.c_str()); });
    return true;
  }();
  (void)registered;
  return path;
}

// Writes the input bytes to the temporary file; aborts if that fails (not a finding in the
// code under test, but the run would be meaningless).
inline const std::string& write_input(const std::uint8_t* data, std::size_t size,
                                      const char* suffix) {
  const std::string& path = temp_path(suffix);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

}  // namespace mlfma2d::fuzz
