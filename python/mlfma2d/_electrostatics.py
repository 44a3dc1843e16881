"""The electrostatic solve: charges, fields, capacitance and line parameters (L, Z0, eps_eff,
modes) of 2D conductors held at given potentials, in dielectric regions, optionally over a ground
plane (the library's electrostatics.hpp; the formulation and its accuracy: docs/solve.md).

SI units throughout: metres, volts, C/m^2 (sigma), C/m (charge), F/m (capacitance), H/m
(inductance), ohm, m/s. Conductors are infinitely long along z; their cross-sections are contours
(closed or open, straight segments or circular arcs, several contours may form one conductor);
closed contours with conductor -1 bound dielectric regions. With K >= 2 conductors the total
charge is zero and `reference` is the ground; K = 1 carries `total_charge`; over a ground plane
the plane is the reference.
"""
import collections
import os
from typing import NamedTuple, Optional

import numpy as np

from . import _core
from ._solver import _fmm_options, _scipy_linear_operator

EPSILON_0 = _core.EPSILON_0


_EMPTY = np.empty(0)


class Contours(NamedTuple):
    """Cross-sections: every contour's vertices one after another.

    x, y: vertices (m). offsets: first vertex of each contour, contours + 1 entries (0 first, the
    vertex count last). closed: per contour 1 = closed (the last vertex joins the first; do not
    repeat it), 0 = open. conductor: per contour its conductor, 0-based, or -1 for the boundary of
    a dielectric region. bulge: per vertex, the arc of the segment it starts (tan(angle / 4),
    positive counter-clockwise; 1 = a half circle), empty = all straight. eps_r: per contour the
    relative permittivity inside a region (ignored for conductors), empty = no region.
    """
    x: np.ndarray
    y: np.ndarray
    offsets: np.ndarray
    closed: np.ndarray
    conductor: np.ndarray
    bulge: np.ndarray = _EMPTY
    eps_r: np.ndarray = _EMPTY

    @classmethod
    def from_polygons(cls, polygons):
        """Contours from an iterable of (x, y, closed, conductor[, bulge[, eps_r]]): one item per
        contour; bulge: one per vertex or None (straight); eps_r: the region's permittivity
        (conductor -1)."""
        xs, ys, offsets, closed, conductor, bulges, eps = [], [], [0], [], [], [], []
        for i, item in enumerate(polygons):
            if len(item) not in (4, 5, 6):
                raise _core.InvalidInput(f"contour {i}: expected (x, y, closed, conductor[, bulge"
                                         f"[, eps_r]]), got {len(item)} items")
            cx, cy, c, k = item[:4]
            cx = np.atleast_1d(np.asarray(cx, dtype=np.float64))
            cy = np.atleast_1d(np.asarray(cy, dtype=np.float64))
            b = item[4] if len(item) > 4 else None
            bulges.append(np.zeros(len(cx)) if b is None
                          else np.atleast_1d(np.asarray(b, dtype=np.float64)))
            eps.append(float(item[5]) if len(item) > 5 and item[5] is not None else 1.0)
            xs.append(cx)
            ys.append(cy)
            offsets.append(offsets[-1] + len(cx))
            closed.append(int(bool(c)))
            conductor.append(int(k))
        any_arc = any(np.any(b != 0) for b in bulges)
        any_region = any(k == -1 for k in conductor)
        return cls(np.concatenate(xs) if xs else _EMPTY, np.concatenate(ys) if ys else _EMPTY,
                   np.array(offsets, dtype=np.int64), np.array(closed, dtype=np.int32),
                   np.array(conductor, dtype=np.int32),
                   np.concatenate(bulges) if any_arc else _EMPTY,
                   np.array(eps) if any_region else _EMPTY)

    @property
    def contours(self):
        """The number of contours."""
        return len(self.closed)

    @property
    def conductors(self):
        """The number of conductors: the largest conductor index + 1."""
        return max(int(np.max(self.conductor)) + 1, 0) if len(self.conductor) else 0

    def validate(self, ground_plane_y=None):
        """Raise InvalidInput, naming the contour, vertex or segment, when the contours are not a
        valid geometry (lengths, offsets, flags, indices, permittivities, bulges, vertex counts,
        non-finite coordinates, zero-length segments, segments that cross or touch; with a
        ground plane at ground_plane_y, contours below it)."""
        _core.validate_contours(*self, ground_plane_y=ground_plane_y)


class ContourFile(NamedTuple):
    """A contour file read back: the contours and, where the file has them, the conductors'
    potentials (V), the background's relative permittivity and the ground plane's height (m)."""
    contours: Contours
    potentials: Optional[np.ndarray]
    eps_r: Optional[float]
    ground_plane_y: Optional[float] = None


def _record(struct, doc, extra=()):
    """A named tuple of the library struct's fields in declaration order, taken from its table
    (include/mlfma2d/fields.hpp: a new field arrives by itself), then the (name, text) pairs of
    `extra`; its docstring lists each field with its unit."""
    rows = list(_core.FIELDS[struct]) + [(name, "", text) for name, text in extra]
    record = collections.namedtuple(struct, [name for name, _, _ in rows])
    record.__module__ = __name__
    record.__doc__ = doc + "\n\nFields:\n" + "\n".join(
        f"    {name}{f' ({unit})' if unit else ''}: {text}" for name, unit, text in rows)
    return record


Panels = _record(
    "Panels", "The discretisation (m), an array per field with one entry per panel; len() is "
    "the number of panels.")
Panels.__len__ = lambda self: len(self.x)


class FieldAtTargets(NamedTuple):
    """Potential (V) and field E = -grad phi (V/m) at target points; on a panel end the potential
    is the limit and the field NaN, counted in undefined_field."""
    potential: np.ndarray
    ex: np.ndarray
    ey: np.ndarray
    undefined_field: int = 0


LineMode = _record(
    "LineMode", "One propagation mode (TEM, lossless).",
    extra=[("label", '"even" or "odd" for a symmetric pair, else "mode N"')])

LineParameters = _record(
    "LineParameters", "Line parameters per unit length over the signal conductors "
    "(capacitance_conductors); modes: LineMode, slowest first.")

MeshLevel = _record("MeshLevel", "One mesh of an accuracy-driven solve.")


def _line(d):
    pair = d["symmetric_pair"]
    modes = []
    for i, m in enumerate(d["modes"]):
        v = m["voltage"]
        label = (("even" if v[0] * v[1] > 0 else "odd") if pair and len(v) == 2
                 else f"mode {i + 1}")
        modes.append(LineMode(**m, label=label))
    return LineParameters(**{**d, "modes": modes})


class Solution:
    """What a solve returns (the library's ElectrostaticSolution).

    sigma (C/m^2 per panel), charge (C/m per conductor), potentials (V per conductor),
    capacitance ((K-1) x (K-1) F/m; rows and columns: capacitance_conductors, the conductors
    other than the reference; empty without capacitance), offset (V: the potential at infinity for
    K >= 2), panels, iterations, residual, solves (per right-hand side: iterations, residual,
    history), timings, fmm_stats, fmm_backend, fmm_eps, preconditioner; targets and field (a
    FieldAtTargets) when solve() was given targets, else None.

    Transmission lines: sigma_total (C/m^2, free + polarisation charge per panel), line (a
    LineParameters: C0, L, mutual C, Z0, eps_eff, velocity, modes) and its shortcuts z0, eps_eff,
    velocity; accuracy_target (the accuracy asked, 0 = none), accuracy_estimate (NaN when not
    estimated), accuracy_met (True only when the estimate was checked against the target),
    meshes (a MeshLevel per mesh solved); ground_plane, ground_plane_y, tol (the GMRES tolerance
    used). Every field of the library's ElectrostaticSolution is an attribute.
    """

    def __init__(self, core, targets=None, field=None):
        self._core = core
        self.targets = targets
        self.field = field
        # Every field of the library's solution (its table, one attribute of the core object
        # each), read once: each read of the core object copies.
        for name, _, _ in _core.FIELDS["ElectrostaticSolution"]:
            setattr(self, name, getattr(core, name))
        self.panels = Panels(**self.panels)
        self.line = _line(self.line)
        self.meshes = [MeshLevel(**m) for m in self.meshes]

    z0 = property(lambda self: self.line.z0, doc="Z0 (ohm), one signal conductor; else NaN")
    eps_eff = property(lambda self: self.line.eps_eff,
                       doc="C / C0, one signal conductor; else NaN")
    velocity = property(lambda self: self.line.velocity,
                        doc="c / sqrt(eps_eff) (m/s), one signal conductor; else NaN")

    def __repr__(self):
        k = len(self.charge)
        return (f"mlfma2d.Solution(conductors={k}, panels={len(self.sigma)}, "
                f"iterations={self.iterations}, residual={self.residual:.3g})")


def _contours(contours):
    if isinstance(contours, ContourFile):
        contours = contours.contours
    if not isinstance(contours, Contours):
        if isinstance(contours, tuple) and len(contours) in (5, 6, 7):
            contours = Contours(*contours)
        else:
            raise TypeError("contours must be a mlfma2d.Contours (Contours.from_polygons, "
                            "generate_contours, read_contours), got "
                            f"{type(contours).__name__}")
    return contours


class ElectrostaticSolver:
    """The solve for one geometry: contours discretised, the operator (FMM Solver, analytic near
    corrections, preconditioner) built once; then solve() for the potentials given, and field()
    at any points.

    ElectrostaticSolver(contours, *, eps_r=1, ground_plane=False, ground_plane_y=0,
                        potentials=None, reference=0, total_charge=1e-9, capacitance=True,
                        accuracy=0, max_panels=4000000, panels=0, panel_size=0, grading=3,
                        corner_angle=10, tol=1e-10, restart=50, max_iterations=5000,
                        preconditioner="auto", block_size=32, block_overlap=8, method="fmm",
                        quadrature_nodes=4, near_radius=6, progress=None, eps=None,
                        backend="auto", ct=None, levels=None, threads=None, tree="adaptive")

    The first group are the library's ElectrostaticOptions (defaults from it; docs/python.md
    says what each means): accuracy > 0 refines the mesh until the estimated relative error of
    C is below it; ground_plane_y given without ground_plane puts a ground plane there. progress:
    a callable taking one str, called during solve() at every GMRES iteration (mesh, right-hand
    side, iteration, residual); an exception it raises ends the solve. eps, backend, ct, levels,
    threads and tree set the FMM Solver as in mlfma2d.Solver; eps=None derives the FMM accuracy
    from tol (min(1e-6, max(1e-14, tol/100))).
    """

    def __init__(self, contours, *, eps=None, backend=None, ct=None, levels=None, threads=None,
                 tree=None, progress=None, **options):
        c = _contours(contours)
        if "potentials" in options and options["potentials"] is not None:
            options["potentials"] = [float(v) for v in np.ravel(options["potentials"])]
        options = {k: v for k, v in options.items() if v is not None}
        if "ground_plane_y" in options and "ground_plane" not in options:
            options["ground_plane"] = True  # a plane's height asks for the plane
        fmm = _fmm_options(eps=eps, backend=backend, ct=ct, levels=levels, threads=threads,
                           tree=tree)
        self._solver = _core.ElectrostaticSolver(*c, options, fmm, progress)
        self.contours = c

    def solve(self, targets=None):
        """Solve for the potentials given; with targets (a pair (tx, ty) of arrays, m), also the
        potential and field there (Solution.field)."""
        s = Solution(self._solver.solve())
        if targets is not None:
            s.targets = targets
            s.field = self.field(s, targets)
        return s

    def field(self, solution, targets):
        """Potential (V) and field (V/m) at targets (tx, ty) for a solution of this solver, as a
        FieldAtTargets. On a panel (not at its ends) the field is the mean of its two sides; at a
        target exactly on a panel end point the potential is the limit and the field NaN (counted
        in FieldAtTargets.undefined_field)."""
        if not isinstance(solution, Solution):
            raise TypeError("solution must be a mlfma2d.Solution from this solver's solve()")
        if len(targets) != 2:
            raise _core.InvalidInput("targets must be a pair (tx, ty) of 1-D arrays")
        return FieldAtTargets(*self._solver.field(solution._core, targets[0], targets[1]))

    def potential_at_panels(self, sigma):
        """The operator every solve inverts: the potential (V) at the panel centres of a surface
        charge sigma (C/m^2 per panel), nothing added (a solution's potential is this plus its
        offset). One FMM product and the analytic near corrections."""
        return self._solver.potential_at_panels(sigma)

    def as_linear_operator(self):
        """potential_at_panels as a scipy.sparse.linalg.LinearOperator (panels x panels), for a
        caller's own iterative solver; the constant and the charge condition are the caller's
        (docs/python.md has the bordered system the library solves)."""
        LinearOperator = _scipy_linear_operator("ElectrostaticSolver.as_linear_operator")
        n = len(self.panels)
        return LinearOperator((n, n), matvec=lambda s: self.potential_at_panels(np.ravel(s)),
                              dtype=np.float64)

    @property
    def panels(self):
        """The panels (a Panels of arrays, m)."""
        return Panels(**self._solver.panels)

    @property
    def conductors(self):
        return self._solver.conductors

    @property
    def options(self):
        """Every ElectrostaticOptions field this solver uses, as a dict; "fmm": the Solver's."""
        return self._solver.options

    @property
    def timings(self):
        """Set-up seconds (discretise, near, fmm_setup, preconditioner), then the last solve's."""
        return self._solver.timings

    def __repr__(self):
        return (f"mlfma2d.ElectrostaticSolver(conductors={self.conductors}, "
                f"panels={len(self.panels)})")


def solve(contours, *, targets=None, **options):
    """One call: ElectrostaticSolver(contours, **options).solve(targets). Returns a Solution with
    sigma (C/m^2 per panel), charge (C/m per conductor), capacitance (signal x signal, F/m) and
    the line parameters (Solution.line, .z0, .eps_eff, .velocity). A ContourFile's potentials,
    background permittivity and ground plane apply unless given (as `mlfma2d solve` does)."""
    if isinstance(contours, ContourFile):
        if contours.ground_plane_y is not None and "ground_plane" not in options:
            options.setdefault("ground_plane_y", contours.ground_plane_y)
        for key in ("eps_r", "potentials"):
            if getattr(contours, key) is not None:
                options.setdefault(key, getattr(contours, key))
    return ElectrostaticSolver(contours, **options).solve(targets)


def contour_shapes():
    """The geometries generate_contours knows."""
    return _core.contour_shapes()


def generate_contours(shape, **parameters):
    """A named geometry (contour_shapes()) as Contours. Parameters (m) and their defaults:
    a=1e-3, b=3e-3, e=1e-3, d=4e-3, w=1e-3, h=0.5e-3, s=1e-3, t=0, r1=2e-3, eps_r=4.4,
    ground=10e-3, vertices=256 (per circle); docs/python.md says which shape uses which."""
    return Contours(*_core.generate_contours(shape, parameters))


def read_contours(path):
    """A contour file (HDF5: /contours/x, y, offsets, closed, conductor, optional bulge and
    eps_r, /conductors/potential, attributes eps_r and ground_plane_y) as a ContourFile; IoError
    names the file, dataset and index of anything wrong."""
    c, potentials, eps_r, ground_plane_y = _core.read_contours(os.fspath(path))
    return ContourFile(Contours(*c), potentials, eps_r, ground_plane_y)


def write_contours(path, contours, potentials=None, eps_r=None, ground_plane_y=None):
    """Write a contour file (atomically: nothing is written on any error)."""
    c = _contours(contours)
    _core.write_contours(os.fspath(path), *c, potentials, eps_r, ground_plane_y)


def write_solution(path, solution):
    """Write a Solution (HDF5, atomically, every dataset with description and units): the
    conductor table (/conductors/potential, charge, kind), /capacitance and the line parameters,
    /modes/*, /panels/*, /meshes/*, /solves/*, and with a field /targets/*, as `mlfma2d solve
    --output` writes it."""
    if not isinstance(solution, Solution):
        raise TypeError("solution must be a mlfma2d.Solution")
    _core.write_solution(os.fspath(path), solution._core, solution.targets, solution.field)


def write_rlgc(path, solution):
    """Write L and C of a Solution (signal conductors) as an HSPICE W-element RLGC file (R = G =
    0), atomically; InvalidInput when it has no capacitance matrix."""
    if not isinstance(solution, Solution):
        raise TypeError("solution must be a mlfma2d.Solution")
    _core.write_rlgc(os.fspath(path), solution._core)


def coax_capacitance(a, b, eps_r=1.0):
    """Coaxial line, radii a < b (m): 2 pi eps / ln(b/a), F/m."""
    return _core.coax_capacitance(a, b, eps_r)


def eccentric_coax_capacitance(a, b, e, eps_r=1.0):
    """Eccentric coax, centres e apart: 2 pi eps / acosh((a^2 + b^2 - e^2) / (2ab)), F/m."""
    return _core.eccentric_coax_capacitance(a, b, e, eps_r)


def two_wire_capacitance(a, d, eps_r=1.0):
    """Two-wire line, radius a, centre distance d > 2a: pi eps / acosh(d / (2a)), F/m."""
    return _core.two_wire_capacitance(a, d, eps_r)


def strip_sigma(x, w, charge):
    """Lone flat strip |x| < w/2 carrying charge (C/m): Q / (pi sqrt((w/2)^2 - x^2)), C/m^2."""
    return _core.strip_sigma(x, w, charge)
