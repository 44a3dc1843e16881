#include "app/generate.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <ostream>
#include <sstream>

#include "app/inputs.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/mlfma2d.hpp"
#include "runtime/text.hpp"

namespace mlfma2d::app {

namespace {

// ---- The contour shapes (a contour file for mlfma2d solve)

bool is_contour_shape(const std::string& shape) {
  const std::vector<std::string> shapes = contour_shapes();
  return std::find(shapes.begin(), shapes.end(), shape) != shapes.end();
}

// The shapes whose substrate or box width `ground` defaults to 0: the library's automatic width.
bool automatic_width(const std::string& shape) {
  return shape == "microstrip-line" || shape == "coupled-microstrip" || shape == "cpwg" ||
         shape == "stripline";
}

// "a=1e-3,b=3e-3" (metres; eps_r relative) into the shape's parameters; unknown keys and bad
// values are refused naming --params. The defaults are ContourShape's, except those
// contour_shapes_help() lists per shape.
ContourShape contour_params(const std::string& shape, const std::string& text,
                            std::size_t vertices) {
  ContourShape p;
  p.vertices = vertices;
  if (automatic_width(shape)) p.ground = 0;
  if (shape == "coated-wire") p.h = 3e-3;  // the coating (r1 = 2e-3) clear of the plane
  if (text.empty()) return p;
  const std::vector<std::pair<const char*, double*>> keys = {
      {"a", &p.a},   {"b", &p.b},         {"e", &p.e},          {"d", &p.d},
      {"w", &p.w},   {"h", &p.h},         {"s", &p.s},          {"t", &p.t},
      {"r1", &p.r1}, {"eps_r", &p.eps_r}, {"ground", &p.ground}};
  for (const std::string& item : list_option("params", text)) {
    const auto eq = item.find('=');
    const std::string key = eq == std::string::npos ? "" : item.substr(0, eq);
    double* slot = nullptr;
    for (const auto& [name, value] : keys) {
      if (key == name) slot = value;
    }
    if (!slot) {
      bad_value("params", item,
                "KEY=VALUE with KEY one of a, b, e, d, w, h, s, t, r1, eps_r, ground");
    }
    *slot = real_option("params", item.substr(eq + 1),
                        key == "eps_r" ? "a relative permittivity" : "a length in metres");
  }
  return p;
}

// Writes the contour file of a named shape, with the ground plane y = 0 for the shapes over it
// and the background eps_r for stripline (its box is filled); "wrote ..." on `out` unless quiet.
int run_generate_contours(const std::string& shape, const ContourShape& params,
                          const std::string& output, bool quiet, std::ostream& out) {
  if (format_of(output) != FileFormat::Hdf5) {
    throw InvalidInput("--output: contour files are HDF5: use .h5 or .hdf5");
  }
  check_writable(output);
  ContourFile file;
  file.contours = generate_contours(shape, params);
  file.ground_plane = contour_shape_has_ground_plane(shape);
  if (shape == "stripline") {
    file.eps_r = params.eps_r;
    file.has_eps_r = true;
  }
  write_contours(output, file);
  if (!quiet) {
    std::size_t regions = 0;
    for (int k : file.contours.conductor) regions += k == kDielectric;
    out << "wrote " << file.contours.contours() << " contours of " << file.contours.conductors()
        << " conductor(s)";
    if (regions > 0) out << " and " << regions << " dielectric region(s)";
    out << ", " << file.contours.x.size() << " vertices (" << shape << ")";
    if (file.ground_plane) out << " over a ground plane at y = 0";
    if (file.has_eps_r) out << " in eps_r " << format("%g", file.eps_r);
    out << " to " << output << "\n";
  }
  return 0;
}

// The contour shapes' lines for generate --help.
std::string contour_shapes_help() {
  return "Contour shapes (a contour file for mlfma2d solve; --params in metres, eps_r relative;\n"
         "--n = vertices per circle of the polygon shapes, default 256):\n"
         "  coax            shield radius b (conductor 0) around a wire of radius a (1); a=1e-3, "
         "b=3e-3\n"
         "  eccentric-coax  the same, the wire moved by e along x; e=1e-3\n"
         "  two-wire        wires of radius a, centres d apart (0 left, 1 right); a=1e-3, d=4e-3\n"
         "  strip           one flat strip of width w (one conductor); w=1e-3\n"
         "  microstrip      ground strip of width `ground` (0), two strips of width w at height h,"
         "\n                  gap s (1, 2); w=1e-3, h=5e-4, s=1e-3, ground=1e-2\n"
         "  rectangle       a closed w x h rectangle (one conductor); w=1e-3, h=5e-4\n"
         "Transmission lines (exact arcs; the first four over a ground plane at y = 0, the\n"
         "reference; the first three on a substrate [-ground/2, ground/2] x [0, h] of eps_r,\n"
         "ground=0: 20 (metal span + h) wide); defaults w=1e-3, h=5e-4, s=1e-3, t=0 (t > 0:\n"
         "rectangular traces), eps_r=4.4, ground=0:\n"
         "  microstrip-line     trace of width w, thickness t (conductor 0)\n"
         "  coupled-microstrip  two traces of width w, gap s (0 left, 1 right)\n"
         "  cpwg                trace of width w (1) between coplanar grounds (0) at gaps s,\n"
         "                      reaching the substrate's edges\n"
         "  coated-wire         wire of radius a (0), centre height h, coating to radius r1\n"
         "                      (eps_r), no substrate; a=1e-3, r1=2e-3, h=3e-3\n"
         "  stripline           trace w x t (1) centred in a closed box (0) of height b, width\n"
         "                      ground (0: 10 b), filled with eps_r (the background); b=3e-3\n"
         "  coax-sleeve         coax: shield b (0), wire a (1), sleeve of eps_r to radius r1\n"
         "                      around the wire, air outside; a=1e-3, r1=2e-3, b=3e-3\n";
}

po::options_description generate_description() {
  return option_table(
      "Generate", {{
                       {"shape", "NAME", "point-set shape (listed below); required"},
                       {"n", "N",
                        "number of points, >= 1 (1000000 or 1e6); required for point sets; "
                        "contour shapes: vertices per circle, default 256"},
                       {"params", "K=V,...",
                        "contour shapes: their lengths in metres (listed below); default: as "
                        "listed"},
                       {"densities", "ND",
                        "point sets: nd density vectors of strengths, 1..1024 (q, or q0..q{nd-1}); "
                        "default: 1"},
                       {"sources", "charges|dipoles|both",
                        "point sets: charges (density 0's uniform in [0, 1) as with one density), "
                        "dipoles (strengths uniform in [0, 1), unit orientations of uniform "
                        "angle), or both; default: charges"},
                       {"orientations", "per-source|per-density",
                        "dipoles: one orientation per source for every density, (2, N), or one "
                        "per source and density, (nd, 2, N); default: per-source"},
                       {"seed", "S", "random seed; default: 1"},
                       {"output,o", "FILE",
                        "point-set file, HDF5 (.h5/.hdf5) or CSV (.csv) by extension; required"},
                   },
                   closing_options(false, "print nothing on success; default: off")});
}

// --densities, --sources, --orientations: for point sets only.
void generate_sources(const po::variables_map& vm, GenerateArgs* a) {
  GeneratedSources& g = a->sources;
  const std::string* densities = value_of(vm, "densities");
  const std::string* sources = value_of(vm, "sources");
  const std::string* orientations = value_of(vm, "orientations");
  if ((densities || sources || orientations) && is_contour_shape(a->shape)) {
    throw InvalidInput(
        "--densities, --sources and --orientations are for point sets, not the "
        "contour shape " +
        a->shape);
  }
  if (densities) {
    g.densities = static_cast<int>(
        integer_option("densities", *densities, 1, kMaxDensities,
                       "an integer in [1, " + std::to_string(kMaxDensities) + "]"));
  }
  if (sources) {
    const std::string kinds = choice_option("sources", *sources, {"charges", "dipoles", "both"});
    g.charges = kinds != "dipoles";
    g.dipoles = kinds != "charges";
  }
  if (orientations) {
    if (!g.dipoles) {
      throw InvalidInput("--orientations: for dipoles (--sources dipoles or both)");
    }
    g.vectors_per_density = choice_option("orientations", *orientations,
                                          {"per-source", "per-density"}) == "per-density";
  }
}

// "" for one density of charges (the points as before); else "; 3 densities of dipoles".
std::string sources_words(const GeneratedSources& g) {
  if (g.densities == 1 && g.charges && !g.dipoles) return "";
  std::string out = format("; %d densit%s of ", g.densities, g.densities == 1 ? "y" : "ies");
  out += g.charges && g.dipoles ? "charges and dipoles" : g.dipoles ? "dipoles" : "charges";
  if (g.dipoles && g.vectors_per_density) out += ", orientations per density";
  return out;
}

GenerateArgs generate_args(const po::variables_map& vm) {
  GenerateArgs a;
  const std::string* shape = value_of(vm, "shape");
  if (!shape) {
    throw InvalidInput("generate: --shape is required (shapes: " + join(point_set_shapes(), ", ") +
                       ")");
  }
  a.shape = is_contour_shape(*shape) ? *shape : shape_option("shape", *shape);
  const std::string* n = value_of(vm, "n");
  if (n) {
    a.n = count_option("n", *n);
  } else if (is_contour_shape(a.shape)) {
    a.n = ContourShape().vertices;
  } else {
    throw InvalidInput("generate: --n is required");
  }
  const std::string* params = value_of(vm, "params");
  if (params && !is_contour_shape(a.shape)) {
    throw InvalidInput("--params is for the contour shapes (" + join(contour_shapes(), ", ") + ")");
  }
  a.contour = contour_params(a.shape, params ? *params : "", a.n);
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
  generate_sources(vm, &a);
  const std::string* output = value_of(vm, "output");
  if (!output) throw InvalidInput("generate: --output is required");
  a.output = file_option("output", *output);
  a.quiet = switch_of(vm, "quiet");
  return a;
}

std::string generate_help() {
  const std::map<std::string, std::string> about = {
      {"uniform", "unit square plate, uniform random points (the papers' case)"},
      {"disk", "uniform random points in a disk"},
      {"lshape", "uniform random points in an L-shaped plate"},
      {"circle", "points on a circle (contour)"},
      {"ellipse", "points on an ellipse (contour)"},
      {"strips", "two parallel strips"},
      {"clusters", "Gaussian clusters"},
      {"graded-strip", "a strip's cross-section, cosine-spaced toward both edges"},
      {"graded-polygon", "an L-shaped contour, cosine-spaced toward every corner"},
      {"multiscale-clusters", "Gaussian clusters of widths 1e-2 down to 1e-8"}};
  std::size_t width = 0;
  for (const std::string& shape : point_set_shapes()) width = std::max(width, shape.size());
  std::string shapes = "Shapes:\n";
  for (const std::string& shape : point_set_shapes()) {
    const auto it = about.find(shape);
    shapes += "  " + shape + std::string(width + 2 - shape.size(), ' ') +
              (it == about.end() ? "" : it->second) + "\n";
  }
  return help_page(
      "mlfma2d generate: write a PEC point set (points with charges q uniform in [0, 1))\n\n"
      "Usage:\n  mlfma2d generate --shape NAME --n N --output FILE [--seed S]\n"
      "                   [--densities ND] [--sources charges|dipoles|both] "
      "[--orientations per-density]\n"
      "  mlfma2d generate --shape CONTOUR-SHAPE [--params K=V,...] [--n N] --output FILE\n",
      "", generate_description(), shapes + "\n" + contour_shapes_help(),
      "0 success, 2 bad usage or option value, 3 output not writable, 1 unexpected internal "
      "error.");
}

int run_generate(const GenerateArgs& a, std::ostream& out, std::ostream& err) {
  if (is_contour_shape(a.shape)) {
    return run_generate_contours(a.shape, a.contour, a.output, a.quiet, out);
  }
  check_writable(a.output);
  check_memory(format("generate --n %zu", a.n), double(generate_points_bytes(a.n, a.sources)));
  const Progress progress(err, a.quiet);
  PointSet points;
  {
    const auto step = progress.step(format("generating %zu points", a.n));
    points = generate_points(a.shape, a.n, a.seed, a.sources);
  }
  {
    const auto step = progress.step("writing " + a.output);
    write_points(a.output, points);
  }
  if (!a.quiet) {
    out << "wrote " << points.x.size() << " points (" << a.shape << ", seed " << a.seed
        << sources_words(a.sources) << ") to " << a.output << "\n";
  }
  return 0;
}

ParsedCommand parse(const po::variables_map& vm, const std::vector<std::string>&,
                    const std::vector<std::string>&) {
  return command("generate", generate_args(vm), run_generate);
}

}  // namespace

CommandRow generate_command() {
  return {
      "generate",
      "generate",
      "  mlfma2d generate --shape NAME --n N --output FILE [--seed S]\n"
      "                                    write a PEC point set (see mlfma2d generate --help)\n",
      generate_description,
      generate_help,
      false,
      parse};
}

}  // namespace mlfma2d::app
