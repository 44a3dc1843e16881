#include "app/generate.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <ostream>
#include <sstream>

#include "app/inputs.hpp"
#include "app/options.hpp"
#include "app/progress.hpp"
#include "app/solve.hpp"
#include "mlfma2d/io.hpp"
#include "mlfma2d/text.hpp"

namespace mlfma2d::app {

namespace {

po::options_description generate_description() {
  return option_table(
      "Generate", {{
                       {"shape", "NAME", "point-set shape (listed below); required"},
                       {"n", "N",
                        "number of points, >= 1 (1000000 or 1e6); contour shapes: vertices per "
                        "circle; required"},
                       {"params", "K=V,...",
                        "contour shapes: their lengths in metres (listed below); default: as "
                        "listed"},
                       {"seed", "S", "random seed; default: 1"},
                       {"output,o", "FILE",
                        "point-set file, HDF5 (.h5/.hdf5) or CSV (.csv) by extension; required"},
                   },
                   closing_options(false, "print nothing on success; default: off")});
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
  if (!n) throw InvalidInput("generate: --n is required");
  a.n = count_option("n", *n);
  const std::string* params = value_of(vm, "params");
  if (params && !is_contour_shape(a.shape)) {
    throw InvalidInput("--params is for the contour shapes (" + join(contour_shapes(), ", ") + ")");
  }
  a.contour = contour_params(params ? *params : "", a.n);
  if (auto v = value_of(vm, "seed")) a.seed = seed_option("seed", *v);
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
      "Usage:\n  mlfma2d generate --shape NAME --n N --output FILE [--seed S]\n",
      "", generate_description(), shapes + "\n" + contour_shapes_help(),
      "0 success, 2 bad usage or option value, 3 output not writable, 1 unexpected internal "
      "error.");
}

int run_generate(const GenerateArgs& a, std::ostream& out, std::ostream& err) {
  if (is_contour_shape(a.shape)) {
    return run_generate_contours(a.shape, a.contour, a.output, a.quiet, out);
  }
  check_writable(a.output);
  check_memory(format("generate --n %zu", a.n), double(generate_points_bytes(a.n)));
  const Progress progress(err, a.quiet);
  PointSet points;
  {
    const auto step = progress.step(format("generating %zu points", a.n));
    points = generate_points(a.shape, a.n, a.seed);
  }
  {
    const auto step = progress.step("writing " + a.output);
    write_points(a.output, points);
  }
  if (!a.quiet) {
    out << "wrote " << points.x.size() << " points (" << a.shape << ", seed " << a.seed << ") to "
        << a.output << "\n";
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
