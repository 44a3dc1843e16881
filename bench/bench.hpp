#pragma once
// The performance table's parts (bench/bench.cpp measures): its command line (bench_args.cpp)
// and its rows, printed as they complete, as a table last, and kept in the JSON file
// (bench_table.cpp).
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlfma2d::bench {

/// \brief The command line (usage in bench.cpp's head comment and in --help).
struct Args {
  std::string backend;
  int threads = 0;
  int repeat = 5;
  std::set<std::string> rows;
  bool all = true;
  std::string json_path;
  int ct = 15;
  int level_offset = 0;
  std::size_t sample = 1000;
  bool variants = false;
  std::size_t kernel_n = 10000000;
  std::vector<int> kernel_ct = {15, 64};
  std::vector<std::string> auto_sets = {"uniform"};
  std::vector<std::size_t> auto_n = {1000000};
  double auto_eps = 1e-6;
  std::vector<std::string> auto_backends;  ///< empty: every available one
  std::vector<std::string> auto_trees = {"uniform", "adaptive"};
  std::vector<int> auto_offsets = {-4, -3, -2, -1, 0, 1};
  double max_pairs = 2e10;            ///< row h skips a scan point with more pairs
  bool place_threads = true;          ///< row h: Options::place_threads
  std::size_t densities_n = 1000000;  ///< row i: the points
};

/// \brief The machine's FMA peak (row p, bench/peak.cpp), GFLOP/s.
struct Peak {
  bool measured = false;
  int threads = 0, wide_bits = 256;
  double narrow_all = 0, narrow_one = 0;            ///< 256-bit vectors: every thread, one thread
  double wide_all = 0, wide_one = 0;                ///< the widest vectors this CPU has
  double translation_all = 0, translation_one = 0;  ///< the far field's translation kernel, widest
};
/// Measures the peak (a second or so) and keeps it for the rows after.
const Peak& measure_peak(int threads);
/// The peak measured last (measured = false before).
const Peak& peak();
/// Row p: the peak at 256 bits and at the widest.
void row_peak(int threads);

/// Row i (bench/densities.cpp): several densities, dipoles and the Hessian against the
/// evaluations they extend.
void rows_densities(const Args& a);

/// Reads the command line into *a (its back end checked, row f added where memory allows);
/// false when the program is to end now with *status: 0 after --help, 2 after a bad option
/// (said on stderr with the usage).
bool parse_args(int argc, char** argv, Args* a, int* status);
/// Whether row `id` is to run.
bool wants(const Args& a, const std::string& id);

/// \brief One row of the table; `detail` goes to the JSON file.
struct Row {
  std::string id, what, target, measured, met;
  nlohmann::json detail;
};

/// The table's column heads.
void print_table_head();
/// Prints `r` with its detail, keeps it, and rewrites the JSON file (when kept) with every row
/// so far: a run cut short keeps the rows it finished.
void add_row(Row r);
/// The row added last (a later row adds to its detail).
Row& last_row();
/// The table of every row, under a line `title`.
void print_table(const std::string& title);

/// From now on the JSON file `path` is `head` with the rows and the peak memory so far.
void keep_json(const std::string& path, nlohmann::json head);
/// Rewrites the JSON file, when one is kept; throws IoError when it cannot.
void save_json();

/// Peak resident host memory of this process, and the host's memory, GiB.
double peak_rss_gib();
double host_memory_gib();

}  // namespace mlfma2d::bench
