#pragma once
/// \file fields.hpp
/// One table of each public struct's fields: its name, the member, its unit and one line on
/// what it holds. The program's reports (text and JSON), the result and solution files
/// (attributes and datasets) and the Python module take the names from here, so each field is
/// named once, and a new field reaches them by one row in its table. tests/test_fields.cpp checks
/// every table against its struct's declaration.
///
///     for_each_field(solver.stats(), [](const auto& field, const auto& value) {
///       std::cout << field.name << " = " << value << " " << field.unit << "\n";
///     });
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "mlfma2d/electrostatics.hpp"
#include "mlfma2d/mlfma2d.hpp"

namespace mlfma2d {

/// \brief One field of struct S: its name (the member's, as every output spells it), the
/// member, its unit ("" for names, flags, counts, indices and ratios) and one line on it.
template <class S, class T>
struct Field {
  const char* name;
  T S::*member;
  const char* unit;
  const char* description;
};

/// \brief A row of a table, its types deduced from the member.
template <class S, class T>
constexpr Field<S, T> field(const char* name, T S::*member, const char* unit,
                            const char* description) {
  return {name, member, unit, description};
}

/// \brief The table of struct S: FieldTable<S>::visit(f) calls f(Field<S, T>) for every field,
/// in declaration order. Specialised below for each public struct that is reported; empty
/// (no visit) for any other type.
template <class S>
struct FieldTable {};

namespace fields_detail {
struct Ignore {
  template <class F>
  constexpr void operator()(const F&) const {}
};
}  // namespace fields_detail

/// \brief Whether T has a table: a struct that outputs spell out field by field.
template <class T, class = void>
struct has_fields : std::false_type {};
template <class T>
struct has_fields<T, std::void_t<decltype(FieldTable<T>::visit(fields_detail::Ignore{}))>>
    : std::true_type {};
template <class T>
constexpr bool has_fields_v = has_fields<T>::value;

/// \brief Whether T is a list (a std::vector): of values, of rows or of structs.
template <class T>
constexpr bool is_list_v = false;
template <class E>
constexpr bool is_list_v<std::vector<E>> = true;

/// \brief Whether T is a list of numbers, or of rows of numbers: what a file holds as a dataset.
template <class T>
constexpr bool is_numbers_v = false;
template <class E>
constexpr bool is_numbers_v<std::vector<E>> = std::is_arithmetic_v<E> || is_numbers_v<E>;

/// \brief Calls f(field, value) for every field of `object`'s table, in order; value is
/// object.*field.member, const when `object` is.
template <class S, class F>
constexpr void for_each_field(S& object, F&& f) {
  FieldTable<std::remove_const_t<S>>::visit(
      [&](const auto& field) { f(field, object.*field.member); });
}

/// \brief The row of `member` in its struct's table (its name, unit, description): how an
/// output that places or renames one field takes the rest from the table. std::logic_error
/// when the table has no row for it.
template <class S, class T>
constexpr Field<S, T> field_of(T S::*member) {
  Field<S, T> found{nullptr, member, "", ""};
  FieldTable<S>::visit([&](const auto& f) {
    if constexpr (std::is_same_v<std::decay_t<decltype(f)>, Field<S, T>>) {
      if (f.member == member) found = f;
    }
  });
  if (!found.name) throw std::logic_error("mlfma2d: a struct field without a row in its table");
  return found;
}

/// \brief Whether row `f` is that of `member` (false for a member of another struct or type).
template <class S, class T, class R, class U>
constexpr bool is_field(const Field<S, T>& f, U R::*member) {
  if constexpr (std::is_same_v<S, R> && std::is_same_v<T, U>) {
    return f.member == member;
  } else {
    return false;
  }
}

// ---- mlfma2d.hpp

template <>
struct FieldTable<Options> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = Options;
    f(field("tree", &S::tree, "", "the tree: adaptive or uniform (the papers')"));
    f(field("ct", &S::ct, "", "leaf capacity CT, 0: chosen by the cost model"));
    f(field("level_offset", &S::level_offset, "", "leaves moved this many levels finer (+)"));
    f(field("eps", &S::eps, "", "target relative L2 error against direct summation"));
    f(field("terms", &S::terms, "", "expansion terms p, 0: derived from eps"));
    f(field("backend", &S::backend, "", "near-field back end, or auto"));
    f(field("threads", &S::threads, "", "OpenMP threads, 0: the OpenMP default"));
    f(field("place_threads", &S::place_threads, "", "pin an evaluation's threads to cores"));
    f(field("field", &S::field, "", "also compute the field E = -grad phi"));
    f(field("hessian", &S::hessian, "", "also compute the Hessian of phi"));
    f(field("densities", &S::densities, "", "nd: density vectors evaluated together"));
    f(field("charges", &S::charges, "", "the sources carry charges q"));
    f(field("dipoles", &S::dipoles, "", "the sources carry dipoles (strength d, orientation v)"));
    f(field("gpu_memory", &S::gpu_memory, "B", "device-memory budget, 0: the free memory"));
    f(field("chunk_targets", &S::chunk_targets, "", "GPU: most targets per chunk, 0: auto"));
    f(field("calibration_cache", &S::calibration_cache, "",
            "file caching the cost model's constants (\"\": default, none: no cache)"));
    f(field("recalibrate", &S::recalibrate, "", "measure the cost model's constants anew"));
  }
};

template <>
struct FieldTable<Timings> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = Timings;
    f(field("tree", &S::tree, "s", "the points prepared, sorted and the tree grown"));
    f(field("plan", &S::plan, "s", "the interaction plan"));
    f(field("setup", &S::setup, "s", "the near-field back end's set-up"));
    f(field("choose", &S::choose, "s", "ct auto: the cost model and its candidates"));
    f(field("device_wait", &S::device_wait, "s", "of setup: waiting for the device's start"));
    f(field("p2m", &S::p2m, "s", "far field: P2M"));
    f(field("m2m", &S::m2m, "s", "far field: M2M"));
    f(field("m2l", &S::m2l, "s", "far field: M2L"));
    f(field("l2l", &S::l2l, "s", "far field: L2L"));
    f(field("l2p", &S::l2p, "s", "far field: L2P"));
    f(field("p2l", &S::p2l, "s", "far field: P2L (the adaptive tree's X lists)"));
    f(field("m2p", &S::m2p, "s", "far field: M2P (the adaptive tree's W lists)"));
    f(field("strengths", &S::strengths, "s", "strengths made ready, outputs finished"));
    f(field("near_collect", &S::near_collect, "s", "near field: collecting the inputs"));
    f(field("near_transfer", &S::near_transfer, "s", "near field: copies to the device"));
    f(field("near_kernel", &S::near_kernel, "s", "near field: the pair kernel"));
    f(field("near_return", &S::near_return, "s", "near field: results back in caller order"));
    f(field("near", &S::near, "s", "near field (P2P), all phases"));
    f(field("far", &S::far, "s", "far field, all operators"));
    f(field("total", &S::total, "s", "one evaluation (without tree, plan and setup)"));
  }
};

template <>
struct FieldTable<TreeStats> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = TreeStats;
    f(field("n_sources", &S::n_sources, "", "sources"));
    f(field("n_targets", &S::n_targets, "", "targets"));
    f(field("self", &S::self, "", "the targets are the sources"));
    f(field("tree", &S::tree, "", "adaptive or uniform"));
    f(field("levels", &S::levels, "", "tree height L: the deepest leaf's level (root: 1)"));
    f(field("levels_ct", &S::levels_ct, "", "L fixed by CT, before level_offset"));
    f(field("levels_capped", &S::levels_capped, "", "CT not met: L hit the deepest level"));
    f(field("ct", &S::ct, "", "leaf capacity CT used"));
    f(field("t", &S::t, "", "most points (sources or targets) in a leaf box"));
    f(field("D", &S::D, "", "N / 4^(L-1): mean points per last-level box of a full tree"));
    f(field("leaf_boxes", &S::leaf_boxes, "", "non-empty leaf boxes"));
    f(field("boxes", &S::boxes, "", "non-empty boxes, all levels"));
    f(field("near_pairs", &S::near_pairs, "", "(target, source) pairs of the near field"));
    f(field("m2l_pairs", &S::m2l_pairs, "", "M2L translations, all levels"));
    f(field("m2p_terms", &S::m2p_terms, "", "targets x boxes of the W lists (M2P)"));
    f(field("p2l_terms", &S::p2l_terms, "", "sources x boxes of the X lists (P2L)"));
    f(field("far_flops", &S::far_flops, "", "floating-point operations of one far field"));
    f(field("terms", &S::terms, "", "expansion terms p"));
    f(field("box_size", &S::box_size, "", "side of the root box, in the tree's coordinates"));
    f(field("merged_sources", &S::merged_sources, "", "sources merged into a coincident one"));
    f(field("coordinate_scale", &S::coordinate_scale, "",
            "the tree works on the coordinates divided by this power of two"));
    f(field("accuracy_floor", &S::accuracy_floor, "",
            "relative accuracy attainable when worse than eps, else 0"));
    f(field("device_memory", &S::device_memory, "B", "peak device bytes of the near field"));
    f(field("threads_placed", &S::threads_placed, "", "the last evaluation pinned its threads"));
  }
};

template <>
struct FieldTable<CapacityCandidate> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = CapacityCandidate;
    f(field("ct", &S::ct, "", "leaf capacity"));
    f(field("level_offset", &S::level_offset, "", "level offset (the uniform tree)"));
    f(field("levels", &S::levels, "", "tree height L"));
    f(field("leaf_boxes", &S::leaf_boxes, "", "non-empty leaf boxes"));
    f(field("near_pairs", &S::near_pairs, "", "near-field pairs"));
    f(field("m2l_pairs", &S::m2l_pairs, "", "M2L translations"));
    f(field("far", &S::far, "s", "predicted far field per evaluation"));
    f(field("near", &S::near, "s", "predicted near field per evaluation"));
    f(field("total", &S::total, "s", "predicted time per evaluation"));
  }
};

template <>
struct FieldTable<AutoChoice> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = AutoChoice;
    f(field("backend_chosen", &S::backend_chosen, "", "the back end was auto"));
    f(field("ct_chosen", &S::ct_chosen, "", "ct (uniform tree: level offset) chosen"));
    f(field("backend", &S::backend, "", "the back end used"));
    f(field("ct", &S::ct, "", "leaf capacity used"));
    f(field("level_offset", &S::level_offset, "", "level offset used"));
    f(field("predicted_seconds", &S::predicted_seconds, "s", "predicted time per evaluation"));
    f(field("choose_seconds", &S::choose_seconds, "s", "choosing: candidates' trees and plans"));
    f(field("calibration_seconds", &S::calibration_seconds, "s",
            "measuring the constants now (0: from the cache)"));
    f(field("calibration", &S::calibration, "", "where the constants came from"));
    f(field("candidates", &S::candidates, "", "the candidates, in the order considered"));
    f(field("reason", &S::reason, "", "one sentence for reports"));
  }
};

template <>
struct FieldTable<BackendInfo> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = BackendInfo;
    f(field("name", &S::name, "", "the back end's name"));
    f(field("summary", &S::summary, "", "one line: what it is"));
    f(field("runs_on_device", &S::runs_on_device, "", "a GPU back end"));
    f(field("available", &S::available, "", "it can run here"));
    f(field("why", &S::why, "", "why not, when not available"));
  }
};

template <>
struct FieldTable<ErrorNorms> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = ErrorNorms;
    f(field("rel_l2", &S::rel_l2, "", "relative L2 error"));
    f(field("max_abs", &S::max_abs, "", "largest absolute error"));
  }
};

// ---- electrostatics.hpp

/// The solve's settings; `progress` (a callback, no value) has no row.
template <>
struct FieldTable<ElectrostaticOptions> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = ElectrostaticOptions;
    f(field("eps_r", &S::eps_r, "", "relative permittivity of the background"));
    f(field("ground_plane", &S::ground_plane, "", "an infinite ground plane, the reference"));
    f(field("ground_plane_y", &S::ground_plane_y, "m", "height of the ground plane"));
    f(field("potentials", &S::potentials, "V", "potential of each conductor"));
    f(field("reference", &S::reference, "", "reference conductor (K >= 2)"));
    f(field("total_charge", &S::total_charge, "C/m", "K = 1: the conductor's charge"));
    f(field("capacitance", &S::capacitance, "", "solve for the capacitance matrix"));
    f(field("accuracy", &S::accuracy, "", "relative accuracy wanted on C, 0: one mesh"));
    f(field("max_panels", &S::max_panels, "", "refinement stops past this many panels"));
    f(field("panels", &S::panels, "", "total panel count, 0: from panel_size or the default"));
    f(field("panel_size", &S::panel_size, "m", "largest panel length, 0: unused"));
    f(field("grading", &S::grading, "", "panel grading exponent toward ends and corners"));
    f(field("corner_angle", &S::corner_angle, "deg", "a sharper turn is a corner"));
    f(field("tol", &S::tol, "", "GMRES relative residual to reach"));
    f(field("restart", &S::restart, "", "GMRES Krylov vectors per cycle"));
    f(field("max_iterations", &S::max_iterations, "", "GMRES iterations per right-hand side"));
    f(field("preconditioner", &S::preconditioner, "", "block, diagonal, none or auto"));
    f(field("block_size", &S::block_size, "", "panels per preconditioner block"));
    f(field("block_overlap", &S::block_overlap, "", "block: panels solved on either side"));
    f(field(
        "batched", &S::batched, "",
        "C's right-hand sides solved as one block (GMRES in lockstep, one FMM pass each step)"));
    f(field("method", &S::method, "", "fmm or dense"));
    f(field("quadrature_nodes", &S::quadrature_nodes, "", "Gauss nodes per panel, far"));
    f(field("near_radius", &S::near_radius, "", "analytic within this many panel lengths"));
    f(field("fmm", &S::fmm, "", "the FMM Solver's options"));
  }
};

template <>
struct FieldTable<Panels> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = Panels;
    f(field("x0", &S::x0, "m", "panel start point x"));
    f(field("y0", &S::y0, "m", "panel start point y"));
    f(field("x1", &S::x1, "m", "panel end point x"));
    f(field("y1", &S::y1, "m", "panel end point y"));
    f(field("x", &S::x, "m", "panel centre x (the collocation point)"));
    f(field("y", &S::y, "m", "panel centre y"));
    f(field("length", &S::length, "m", "panel length"));
    f(field("contour", &S::contour, "", "contour of each panel (0-based)"));
    f(field("conductor", &S::conductor, "",
            "conductor of each panel (0-based), -1 on a dielectric interface"));
    f(field("eps_left", &S::eps_left, "",
            "relative permittivity left of the direction start -> end (the normal's side)"));
    f(field("eps_right", &S::eps_right, "",
            "relative permittivity right of the direction start -> end"));
  }
};

template <>
struct FieldTable<SolveStats> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = SolveStats;
    f(field("iterations", &S::iterations, "", "GMRES iterations of each right-hand side"));
    f(field("residual", &S::residual, "",
            "final true relative residual ||b - A x|| / ||b|| of each right-hand side"));
    f(field("history", &S::history, "", "relative residual after each iteration (GMRES)"));
  }
};

template <>
struct FieldTable<ElectrostaticTimings> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = ElectrostaticTimings;
    f(field("discretise", &S::discretise, "s", "validation and panels"));
    f(field("near", &S::near, "s", "near lists and analytic near corrections"));
    f(field("fmm_setup", &S::fmm_setup, "s", "the FMM Solver: tree, plan, back end"));
    f(field("preconditioner", &S::preconditioner, "s", "blocks and their LU factors"));
    f(field("solve", &S::solve, "s", "every GMRES solve and the final residual"));
    f(field("products", &S::products, "", "operator products, one per vector"));
    f(field("evaluations", &S::evaluations, "",
            "FMM evaluations: one per product, or per block of products"));
    f(field("product", &S::product, "s", "mean seconds of one product"));
    f(field("product_fmm", &S::product_fmm, "s", "of which the FMM evaluation (mean)"));
    f(field("product_near", &S::product_near, "s", "of which the near correction (mean)"));
    f(field("total", &S::total, "s", "set-up and solves"));
  }
};

template <>
struct FieldTable<LineMode> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = LineMode;
    f(field("velocity", &S::velocity, "m/s",
            "propagation velocity of each mode, slowest first (for a symmetric pair: even, odd)"));
    f(field("eps_eff", &S::eps_eff, "", "effective permittivity (c / velocity)^2"));
    f(field("impedance", &S::impedance, "ohm",
            "modal impedance V.V / (V.I) for the mode's voltages V and currents I"));
    f(field("voltage", &S::voltage, "",
            "the mode's voltages on the signal conductors (max |.| = 1)"));
  }
};

template <>
struct FieldTable<LineParameters> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = LineParameters;
    f(field("capacitance_vacuum", &S::capacitance_vacuum, "F/m",
            "C0: the Maxwell matrix with every eps_r = 1"));
    f(field("inductance", &S::inductance, "H/m", "L = mu0 eps0 C0^-1"));
    f(field("capacitance_mutual", &S::capacitance_mutual, "F/m",
            "mutual (SPICE) form of C: -C_ij off the diagonal"));
    f(field("capacitance_to_ground", &S::capacitance_to_ground, "F/m",
            "capacitance of each signal conductor to the reference: sum_j C_ij"));
    f(field("z0", &S::z0, "ohm", "one signal conductor: sqrt(L/C)"));
    f(field("eps_eff", &S::eps_eff, "", "one signal conductor: C/C0"));
    f(field("velocity", &S::velocity, "m/s", "one signal conductor: c / sqrt(eps_eff)"));
    f(field("modes", &S::modes, "", "the modes (eigenvectors of L C), slowest first"));
    f(field("symmetric_pair", &S::symmetric_pair, "",
            "two signal conductors with C11 = C22 within 1e-6"));
  }
};

template <>
struct FieldTable<MeshLevel> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = MeshLevel;
    f(field("panels", &S::panels, "", "panels of each mesh solved, coarse to fine"));
    f(field("change", &S::change, "",
            "max_ij |C_ij - C_ij(previous mesh)| / sqrt(C_ii C_jj); NaN on the first"));
    f(field("seconds", &S::seconds, "s", "wall-clock seconds of each mesh"));
    f(field("iterations", &S::iterations, "", "GMRES iterations on each mesh"));
  }
};

template <>
struct FieldTable<ElectrostaticSolution> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = ElectrostaticSolution;
    f(field("panels", &S::panels, "", "the panels of the final mesh"));
    f(field("sigma", &S::sigma, "C/m^2",
            "surface charge at each panel centre: free charge on conductors (both faces), "
            "polarisation charge on interfaces"));
    f(field("sigma_total", &S::sigma_total, "C/m^2",
            "total (free + polarisation) surface charge whose field in vacuum is the field"));
    f(field("charge", &S::charge, "C/m", "free charge per unit length of each conductor"));
    f(field("potentials", &S::potentials, "V",
            "potential of each conductor (K = 1: relative to the offset gauge)"));
    f(field("offset", &S::offset, "V", "the potential at infinity (K >= 2); ground plane: 0"));
    f(field("eps_r", &S::eps_r, "", "relative permittivity of the background"));
    f(field("ground_plane", &S::ground_plane, "", "over an infinite ground plane"));
    f(field("ground_plane_y", &S::ground_plane_y, "m", "height of the ground plane"));
    f(field("reference", &S::reference, "", "the reference conductor; -1: the ground plane"));
    f(field("capacitance", &S::capacitance, "F/m",
            "Maxwell capacitance matrix C: Q_i = sum_j C_ij V_j, V relative to the reference"));
    f(field("capacitance_conductors", &S::capacitance_conductors, "",
            "the signal conductors (0-based): rows and columns of C and the line's matrices"));
    f(field("line", &S::line, "", "the line parameters from C and C0"));
    f(field("accuracy_estimate", &S::accuracy_estimate, "",
            "estimated relative error of C; NaN: not estimated"));
    f(field("accuracy_target", &S::accuracy_target, "", "the accuracy asked; 0: none"));
    f(field("accuracy_met", &S::accuracy_met, "", "the estimate was checked and met"));
    f(field("meshes", &S::meshes, "", "every mesh solved, coarse to fine"));
    f(field("solves", &S::solves, "", "one per right-hand side, in order"));
    f(field("iterations", &S::iterations, "", "GMRES iterations of all solves"));
    f(field("residual", &S::residual, "", "true relative residual of sigma"));
    f(field("timings", &S::timings, "s", "wall-clock seconds of the phases"));
    f(field("fmm_stats", &S::fmm_stats, "", "the FMM tree (method fmm)"));
    f(field("fmm_backend", &S::fmm_backend, "", "the near-field back end used"));
    f(field("fmm_eps", &S::fmm_eps, "", "the FMM accuracy used"));
    f(field("preconditioner", &S::preconditioner, "", "the preconditioner used"));
    f(field("tol", &S::tol, "", "the GMRES tolerance used"));
    f(field("batched", &S::batched, "", "C's right-hand sides were solved as one block"));
  }
};

template <>
struct FieldTable<FieldAtTargets> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = FieldAtTargets;
    f(field("potential", &S::potential, "V", "potential (at a panel end: the limit)"));
    f(field("field_x", &S::field_x, "V/m",
            "E_x = -dphi/dx (on a panel: the mean of its two sides; at a panel end: NaN)"));
    f(field("field_y", &S::field_y, "V/m", "E_y = -dphi/dy (as field_x)"));
    f(field("undefined_field", &S::undefined_field, "", "targets on a panel end (field NaN)"));
  }
};

template <>
struct FieldTable<ContourShape> {
  template <class F>
  static constexpr void visit(F&& f) {
    using S = ContourShape;
    f(field("a", &S::a, "m", "inner radius (coax), wire radius"));
    f(field("b", &S::b, "m", "outer radius (coax); plate spacing (stripline)"));
    f(field("e", &S::e, "m", "centre offset (eccentric coax)"));
    f(field("d", &S::d, "m", "centre distance (two-wire)"));
    f(field("w", &S::w, "m", "strip width, rectangle width"));
    f(field("h", &S::h, "m", "height above the ground, substrate height, rectangle height"));
    f(field("s", &S::s, "m", "gap between two strips, slot width"));
    f(field("t", &S::t, "m", "trace thickness (0: zero thickness)"));
    f(field("r1", &S::r1, "m", "outer radius of a sleeve or coating"));
    f(field("eps_r", &S::eps_r, "", "the dielectric's relative permittivity"));
    f(field("ground", &S::ground, "m", "ground strip, substrate or box width"));
    f(field("vertices", &S::vertices, "", "vertices per circle of the polygonal shapes"));
  }
};

}  // namespace mlfma2d
