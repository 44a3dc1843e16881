#include "app/common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <random>
#include <unordered_set>

#include "app/cli.hpp"

namespace mlfma2d::app {

namespace fs = std::filesystem;

namespace {

// Direct summation at every target up to this many pairs; beyond it a sample (--verify).
constexpr double kVerifyAllPairs = 4e8;
constexpr std::size_t kVerifyDefaultSample = 1000;

// m distinct indices of [0, n), sorted; Floyd's algorithm keeps memory O(m) for huge n.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::unordered_set<std::size_t> chosen;
  chosen.reserve(2 * m);
  for (std::size_t j = n - m; j < n; ++j) {
    const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, j)(rng);
    if (!chosen.insert(pick).second) chosen.insert(j);
  }
  std::vector<std::size_t> out(chosen.begin(), chosen.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> gather(const std::vector<double>& values, const std::vector<std::size_t>& at) {
  if (at.empty()) return values;
  std::vector<double> out(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) out[i] = values[at[i]];
  return out;
}

}  // namespace

void Progress::stage(const std::string& text) const {
  if (enabled_) err_ << text << std::endl;
}

LoadedInput resolve_input(const std::string& input, const std::string& targets, bool quiet,
                          std::ostream& err) {
  LoadedInput in;
  in.input = input;
  if (in.input.empty()) {
    in.input = find_bundled_data_set();
    if (!quiet) err << "no --input: using bundled data set " << in.input << "\n";
  }
  in.targets_input = targets;
  return in;
}

void read_input(LoadedInput* in, const Progress& progress) {
  progress.stage("reading " + in->input + "...");
  in->points = read_points(in->input);
  if (!in->targets_input.empty()) {
    progress.stage("reading targets " + in->targets_input + "...");
    in->points.tx.clear();
    in->points.ty.clear();
    read_targets(in->targets_input, &in->points.tx, &in->points.ty);
  } else if (in->points.has_targets()) {
    in->targets_input = in->input + " (/targets)";
  }
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;  // also catches hard and symbolic links
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

void check_output_path(const std::string& path) {
  std::error_code ec;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  if (!fs::is_directory(folder, ec)) {
    throw IoError("cannot write '" + path + "': folder '" + folder.string() + "' does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw IoError("cannot write '" + path + "': folder '" + folder.string() + "' is not writable");
  }
  if (fs::is_directory(path, ec)) throw IoError("cannot write '" + path + "': it is a folder");
}

void check_not_an_input(const std::string& option, const std::string& output,
                        const LoadedInput& in) {
  if (same_file(output, in.input)) {
    throw InvalidInput("--" + option + ": '" + output + "' is the input file; choose another name");
  }
  if (!in.targets_input.empty() && same_file(output, in.targets_input)) {
    throw InvalidInput("--" + option + ": '" + output +
                       "' is the --targets file; choose another name");
  }
}

Reference direct_reference(const LoadedInput& in, bool field, long long verify_sample,
                           std::uint64_t seed, int threads) {
  const std::size_t nt = in.tx().size();
  const double pairs = static_cast<double>(in.points.x.size()) * static_cast<double>(nt);
  std::size_t m = nt;
  if (verify_sample > 0) {
    m = std::min<std::size_t>(nt, static_cast<std::size_t>(verify_sample));
  } else if (verify_sample < 0 && pairs > kVerifyAllPairs) {
    m = std::min(nt, kVerifyDefaultSample);
  }
  Reference r;
  r.sampled = m < nt;
  r.n_checked = m;
  r.field = field;
  if (r.sampled) r.which = sample_indices(nt, m, seed);
  const auto start = std::chrono::steady_clock::now();
  direct_sum(in.points.x, in.points.y, in.points.q, in.tx(), in.ty(), r.which, &r.phi,
             field ? &r.fx : nullptr, field ? &r.fy : nullptr, threads);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

Verification verify(const Reference& ref, const Result& result) {
  Verification v;
  v.done = true;
  v.sampled = ref.sampled;
  v.n_checked = ref.n_checked;
  v.direct_seconds = ref.seconds;
  const ErrorNorms e = error_norms(gather(result.potential, ref.which), ref.phi);
  v.rel_l2 = e.rel_l2;
  v.max_abs = e.max_abs;
  if (ref.field) {
    const std::vector<double> ex = gather(result.field_x, ref.which);
    const std::vector<double> ey = gather(result.field_y, ref.which);
    double num = 0, den = 0, worst = 0;
    for (std::size_t i = 0; i < ex.size(); ++i) {
      const double dx = ex[i] - ref.fx[i], dy = ey[i] - ref.fy[i];
      num += dx * dx + dy * dy;
      den += ref.fx[i] * ref.fx[i] + ref.fy[i] * ref.fy[i];
      worst = std::max(worst, std::hypot(dx, dy));
    }
    v.has_field = true;
    v.field_rel_l2 = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
    v.field_max_abs = worst;
  }
  return v;
}

ErrorNorms compare_results(const Result& value, const Result& reference) {
  return error_norms(value.potential, reference.potential);
}

void write_atomically(const std::string& path,
                      const std::function<void(const std::string&)>& write) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw IoError("cannot write '" + path + "': " + std::strerror(e));
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  write_atomically(path, [&](const std::string& tmp) {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw IoError("cannot write '" + path + "': " + std::strerror(errno));
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed) throw IoError("cannot write '" + path + "': write failed (disk full?)");
  });
}

std::size_t median_run(const std::vector<Timings>& runs) {
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t i, std::size_t j) { return runs[i].total < runs[j].total; });
  return order[(order.size() - 1) / 2];
}

}  // namespace mlfma2d::app
