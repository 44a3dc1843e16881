// The tables of the public structs' fields (include/mlfma2d/fields.hpp) against their users: each
// table against its struct's declaration in the header and, through the program, the run report's
// JSON and result-file attributes and the solve's JSON. The solution file:
// tests/test_solve_files.cpp; Python: python/tests/test_api.py and test_solve.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/fields.hpp"
#include "mlfma2d/io.hpp"
#include "tests/test_util.hpp"

namespace mlfma2d {
namespace {

using nlohmann::json;
using testing::fresh_path;

// The names of S's rows, in order.
template <class S>
std::vector<std::string> names_of() {
  std::vector<std::string> names;
  FieldTable<S>::visit([&](const auto& f) { names.push_back(f.name); });
  return names;
}

// The data members of `struct name { ... };` in include/mlfma2d/<header>, in declaration order:
// comments, template arguments and function bodies dropped, then every statement that is no
// function (no parenthesis before its initialiser) split into its declarators.
std::vector<std::string> declared_fields(const std::string& header, const std::string& name) {
  const std::string path = std::string(MLFMA2D_SOURCE_DIR) + "/include/mlfma2d/" + header;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const std::string opening = "\nstruct " + name + " {";
  const auto begin = all.find(opening);
  if (begin == std::string::npos) return {};
  std::string body =
      all.substr(begin + opening.size(), all.find("\n};", begin) - begin - opening.size());
  body = std::regex_replace(body, std::regex("//[^\n]*"), "");
  for (const char* nested : {"<[^<>]*>", "\\{[^{}]*\\}"}) {
    for (std::string before; before != body;) {
      before = body;
      body = std::regex_replace(body, std::regex(nested), nested[0] == '<' ? "" : ";");
    }
  }
  std::vector<std::string> names;
  std::stringstream statements(body);
  for (std::string statement; std::getline(statements, statement, ';');) {
    const std::string declaration = statement.substr(0, statement.find('='));
    if (declaration.find('(') != std::string::npos) continue;  // a function
    const std::regex type("^\\s*(const\\s+)?[\\w:]+\\s+");
    const std::string declarators =
        std::regex_replace(statement, type, "", std::regex_constants::format_first_only);
    if (declarators == statement) continue;  // nothing declared
    std::stringstream parts(declarators);
    for (std::string part; std::getline(parts, part, ',');) {
      std::smatch m;
      std::regex_search(part, m, std::regex("[A-Za-z_]\\w*"));
      if (!m.empty()) names.push_back(m.str());
    }
  }
  return names;
}

// The tables of the structs S..., named `names` in that order, against `header`'s declarations;
// ElectrostaticOptions' callback `progress` has no value to report, and no row.
template <class... S>
void expect_tables(const std::string& header, const std::vector<std::string>& names) {
  ASSERT_EQ(names.size(), sizeof...(S));
  std::size_t i = 0;
  auto expect = [&](std::vector<std::string> table) {
    const std::string& name = names[i++];
    std::vector<std::string> declared = declared_fields(header, name);
    ASSERT_FALSE(declared.empty()) << "struct " << name << " not found in " << header;
    if (name == "ElectrostaticOptions") {
      declared.erase(std::find(declared.begin(), declared.end(), "progress"));
    }
    EXPECT_EQ(table, declared) << name << ": its table and its declaration differ";
  };
  (expect(names_of<S>()), ...);
}

TEST(FieldTables, EveryFieldHasItsRowInDeclarationOrder) {
  const std::string lib = "mlfma2d.hpp", es = "electrostatics.hpp";
  // The header reader finds what it should.
  const std::vector<std::string> timings = declared_fields(lib, "Timings");
  const std::vector<std::string> options = declared_fields(es, "ElectrostaticOptions");
  ASSERT_FALSE(timings.empty() || options.empty()) << "the header reader found no fields";
  EXPECT_EQ(timings.front(), "tree");
  EXPECT_EQ(options.back(), "fmm");
  expect_tables<Options, Timings, TreeStats, CapacityCandidate, AutoChoice, BackendInfo,
                ErrorNorms>(lib, {"Options", "Timings", "TreeStats", "CapacityCandidate",
                                  "AutoChoice", "BackendInfo", "ErrorNorms"});
  expect_tables<ElectrostaticOptions, Panels, SolveStats, ElectrostaticTimings, LineMode,
                LineParameters, MeshLevel, ElectrostaticSolution, FieldAtTargets, ContourShape>(
      es,
      {"ElectrostaticOptions", "Panels", "SolveStats", "ElectrostaticTimings", "LineMode",
       "LineParameters", "MeshLevel", "ElectrostaticSolution", "FieldAtTargets", "ContourShape"});
}

TEST(FieldTables, EachRowIsItsMembersAndSaysWhatItHolds) {
  FieldTable<ElectrostaticSolution>::visit([](const auto& f) {
    EXPECT_STREQ(field_of(f.member).name, f.name);  // one row per member
    EXPECT_GT(std::string(f.description).size(), 5u) << f.name;
  });
  FieldTable<Timings>::visit([](const auto& f) { EXPECT_STREQ(f.unit, "s") << f.name; });
  EXPECT_STREQ(field_of(&LineParameters::inductance).unit, "H/m");
  EXPECT_THROW(field_of(&ElectrostaticOptions::progress), std::logic_error);
  static_assert(has_fields_v<TreeStats> && !has_fields_v<Result>);
}

// ---- The program's reports

#ifdef MLFMA2D_APP

TEST(FieldTables, TheRunReportHasEveryTreeFigureAndPhase) {
  const std::string in = fresh_path("rows.h5"), out = fresh_path("rows.csv");
  write_points(in, testing::make_points("uniform", 2000, 3));
  const testing::AppRun r = testing::run_app("--input " + in + " --backend cpu --ct 20 --quiet " +
                                             "--report json --output " + out);
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  const json j = json::parse(r.out);
  const std::map<std::string, AttrValue> attributes = read_result(out).attributes;
  // Every figure, at the top; an attribute unless null (coordinate_scale when not scaled).
  FieldTable<TreeStats>::visit([&](const auto& f) {
    ASSERT_TRUE(j.contains(f.name)) << f.name;
    EXPECT_TRUE(j[f.name].is_null() || attributes.count(f.name)) << f.name;
  });
  FieldTable<Timings>::visit([&](const auto& f) {
    EXPECT_TRUE(j["timings"].contains(f.name)) << f.name;
    EXPECT_TRUE(attributes.count(std::string("timing_") + f.name)) << f.name;
  });
}

TEST(FieldTables, TheSolveReportHasEveryRowOfWhatItReports) {
  const std::string geom = fresh_path("rows_line.h5"), targets = fresh_path("rows_targets.csv");
  testing::AppRun r = testing::run_app("generate --shape microstrip-line --n 128 --output " + geom);
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  testing::write_file(targets, "x,y\n0,3e-3\n1e-3,4e-3\n");
  r = testing::run_app("solve --input " + geom + " --panels 400 --accuracy 0.05 --quiet " +
                       "--report json --targets " + targets);
  ASSERT_EQ(r.code, 0) << testing::describe(r);
  json j = json::parse(r.out);
  // One signal conductor: every figure of the line at the top, every mode's field in modes.
  FieldTable<LineParameters>::visit(
      [&](const auto& f) { EXPECT_TRUE(j.contains(f.name)) << f.name; });
  auto expect_rows = [](const json& object, const auto& tag, const std::string& where) {
    using S = std::decay_t<decltype(tag)>;
    ASSERT_TRUE(object.is_object()) << where;
    FieldTable<S>::visit([&](const auto& f) {
      // The report's name for a solve's residual history.
      const std::string name =
          is_field(f, &SolveStats::history) ? "residual_history" : std::string(f.name);
      EXPECT_TRUE(object.contains(name)) << where << ": " << name;
    });
  };
  expect_rows(j.at("modes").at(0), LineMode{}, "modes");
  expect_rows(j.at("meshes").at(1), MeshLevel{}, "meshes");
  expect_rows(j.at("solves").at(0), SolveStats{}, "solves");
  expect_rows(j.at("timings"), ElectrostaticTimings{}, "timings");
  // At the targets: the lists by the targets, the count of NaN fields at the top.
  const FieldAtTargets at;
  for_each_field(at, [&](const auto& f, const auto& value) {
    const json& where = is_list_v<std::decay_t<decltype(value)>> ? j.at("targets") : j;
    EXPECT_TRUE(where.contains(f.name)) << f.name;
  });
}

#endif

}  // namespace
}  // namespace mlfma2d
