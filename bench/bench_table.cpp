// mlfma2d_bench's rows (bench/bench.hpp): printed as they complete, as a table last, and kept in
// the JSON file.
#include <cstdio>
#include <utility>
#include <vector>

#include "bench.hpp"
#include "mlfma2d/io.hpp"
#include "tuning/tuning.hpp"

namespace mlfma2d::bench {

namespace {

using json = nlohmann::json;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<Row> g_rows;

// The JSON file and what it says besides the rows; no path: none is kept.
std::string g_json_path;
json g_json_head;

void print_row(const Row& r) {
  std::printf("%-4s %-46s %-16s %-22s %s\n", r.id.c_str(), r.what.c_str(), r.target.c_str(),
              r.measured.c_str(), r.met.c_str());
}

}  // namespace

double peak_rss_gib() {
  return double(tuning::host_memory().peak_resident) / kGiB;
}

double host_memory_gib() {
  return double(tuning::host_memory().total) / kGiB;
}

void print_table_head() {
  std::printf("%-4s %-46s %-16s %-22s %s\n", "row", "what", "target", "measured", "met");
}

void add_row(Row r) {
  print_row(r);
  std::printf("     %s\n", r.detail.dump().c_str());
  std::fflush(stdout);
  g_rows.push_back(std::move(r));
  save_json();
}

Row& last_row() {
  return g_rows.back();
}

void print_table(const std::string& title) {
  std::printf("\n%s\n", title.c_str());
  print_table_head();
  for (const Row& r : g_rows) print_row(r);
}

void keep_json(const std::string& path, json head) {
  g_json_path = path;
  g_json_head = std::move(head);
}

void save_json() {
  if (g_json_path.empty()) return;
  json j = g_json_head;
  j["peak_rss_gib"] = peak_rss_gib();
  json rows = json::array();
  for (const Row& r : g_rows) {
    rows.push_back({{"id", r.id},
                    {"what", r.what},
                    {"target", r.target},
                    {"measured", r.measured},
                    {"met", r.met},
                    {"detail", r.detail}});
  }
  j["rows"] = rows;
  write_text_file(g_json_path, j.dump(2) + "\n");
}

}  // namespace mlfma2d::bench
