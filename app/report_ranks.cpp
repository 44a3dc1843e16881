// The report's figures of a run over MPI ranks (app/ranks.hpp): the rows of the section
// "distributed" of report_fields(), and their text.
#include <algorithm>
#include <cstdint>

#include "app/report.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

using nlohmann::json;

namespace {

using R = const RunReport&;
constexpr unsigned J_A = kJson | kAttribute;

// The largest of a rank's figure over the ranks (seconds).
ReportField ranks_most(const char* key, const char* text, double DistributedFigures::*slot) {
  return {"distributed",
          key,
          text ? "ranks" : nullptr,
          text,
          "%.4g",
          J_A,
          [slot](R r) {
            double most = 0;
            for (const DistributedFigures& f : r.ranks) most = std::max(most, f.*slot);
            return json(most);
          },
          "s"};
}

// The sum of a rank's bytes over the ranks: the evaluation's in all.
ReportField ranks_sum(const char* key, const char* text, std::uint64_t DistributedFigures::*slot) {
  return {"distributed",
          key,
          text ? "ranks" : nullptr,
          text,
          "bytes",
          J_A,
          [slot](R r) {
            std::uint64_t sum = 0;
            for (const DistributedFigures& f : r.ranks) sum += f.*slot;
            return json(sum);
          },
          "B"};
}

}  // namespace

std::vector<ReportField> ranks_fields() {
  return {
      // The reported evaluation's figures (the text adds a line a rank).
      {"distributed", "ranks", "ranks", "{}", nullptr, J_A,
       [](R r) { return json(r.ranks.size()); }},
      ranks_most("evaluation", "slowest {} s per evaluation", &DistributedFigures::evaluation),
      ranks_most("communication", "communication up to {} s", &DistributedFigures::communication),
      {"distributed", "imbalance", "ranks", "imbalance {}", "%.3f", J_A,
       [](R r) { return json(work_imbalance(r.ranks)); }},
      ranks_sum("bytes_sent", "{} sent per evaluation", &DistributedFigures::sent),
      ranks_sum("ghost_bytes", nullptr, &DistributedFigures::ghost_sent),
      ranks_sum("multipole_bytes", nullptr, &DistributedFigures::multipole_sent),
      ranks_sum("redistribution_bytes", nullptr, &DistributedFigures::redistribution_sent),
      ranks_most("setup", nullptr, &DistributedFigures::setup),
      {"distributed", "per_rank", nullptr, nullptr, nullptr, kJson,
       [](R r) {
         json all = json::array();
         for (const DistributedFigures& f : r.ranks) {
           json one = json::object();
           for_each_field(f, [&](const auto& field, const auto& v) { one[field.name] = v; });
           all.push_back(one);
         }
         return all;
       }},
  };
}

std::string ranks_text(const RunReport& r) {
  std::string out = field_lines(r, "ranks", "ranks");
  out += format("  %4s %10s %10s %8s %8s %12s %10s %10s %12s\n", "rank", "sources", "targets",
                "ghosts", "leaves", "evaluation", "comm.", "work", "sent");
  for (const DistributedFigures& f : r.ranks) {
    out += format("  %4d %10zu %10zu %8zu %8zu %10.3f ms %7.3f ms %7.3f ms %12s\n", f.rank,
                  f.sources, f.targets, f.ghost_sources, f.leaves, 1e3 * f.evaluation,
                  1e3 * f.communication, 1e3 * f.work, human_bytes(f.sent).c_str());
  }
  return out;
}

}  // namespace mlfma2d::app
