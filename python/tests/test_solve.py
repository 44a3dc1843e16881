"""The electrostatic solve from Python: capacitance against closed forms, sigma / Q / C consistent
with each other, fields at points, SciPy's GMRES on the library's operator reaching the library's
own answer, contour files, every settings field, errors and the GIL."""
import inspect

import numpy as np
import pytest

import mlfma2d
from mlfma2d import _core
from conftest import rel_l2, spinner_rate_during, struct_fields


# ---- Closed forms (circles are inscribed polygons: the error is the polygon's, O(1/vertices^2))

@pytest.mark.parametrize("shape, closed_form", [
    ("coax", lambda: mlfma2d.coax_capacitance(1e-3, 3e-3)),
    ("eccentric-coax", lambda: mlfma2d.eccentric_coax_capacitance(1e-3, 3e-3, 1e-3)),
    ("two-wire", lambda: mlfma2d.two_wire_capacitance(1e-3, 4e-3)),
])
def test_capacitance_matches_the_closed_form(shape, closed_form):
    s = mlfma2d.solve(mlfma2d.generate_contours(shape, vertices=1024))
    assert s.capacitance.shape == (1, 1)
    c = s.capacitance[0, 0]
    assert abs(c / closed_form() - 1) < 2e-5, (c, closed_form())
    assert s.residual < 1e-9 and s.iterations > 0


def test_permittivity_scales_the_capacitance():
    c = mlfma2d.generate_contours("coax", vertices=256)
    one = mlfma2d.solve(c).capacitance[0, 0]
    four = mlfma2d.solve(c, eps_r=4).capacitance[0, 0]
    assert four / one == pytest.approx(4, rel=1e-9)


def test_lone_strip_sigma_follows_the_closed_form():
    w, q = 1e-3, 2e-9
    s = mlfma2d.solve(mlfma2d.generate_contours("strip", w=w), total_charge=q, panels=2000)
    x = s.panels.x
    middle = np.abs(x) < 0.4 * w  # away from the ends, where sigma is singular
    exact = np.array([mlfma2d.strip_sigma(v, w, q) for v in x[middle]])
    # A zero-thickness strip's sigma is both faces together: the closed form's.
    assert rel_l2(s.sigma[middle], exact) < 1e-3
    assert np.sum(s.sigma * s.panels.length) == pytest.approx(q, rel=1e-9)
    assert s.capacitance.shape == (0, 0)


# ---- sigma, Q and C consistent with each other; fields

def test_sigma_charge_and_capacitance_agree():
    potentials = [0.25, 1.5, -0.75]
    s = mlfma2d.solve(mlfma2d.generate_contours("microstrip"), potentials=potentials, panels=1500)
    assert list(s.capacitance_conductors) == [1, 2]
    assert len(s.sigma) == len(s.panels) == 1500
    # Q per conductor is the integral of sigma over its panels.
    for k in range(3):
        on = s.panels.conductor == k
        assert np.sum(s.sigma[on] * s.panels.length[on]) == pytest.approx(s.charge[k], rel=1e-9)
    # Q = C (V - V_ref), no net charge.
    v = np.array(potentials)[[1, 2]] - potentials[0]
    assert s.capacitance @ v == pytest.approx(s.charge[[1, 2]], rel=1e-9)
    assert abs(np.sum(s.charge)) < 1e-9 * np.max(np.abs(s.charge))
    assert np.array_equal(s.potentials, potentials)
    assert s.panels.x0.shape == s.panels.contour.shape == (1500,)


def test_field_between_coax_conductors_is_the_closed_form():
    a, b, volts = 1e-3, 3e-3, 2.0
    rng = np.random.default_rng(1)
    r = a + (b - a) * rng.uniform(0.1, 0.9, 20)
    t = rng.uniform(0, 2 * np.pi, 20)
    tx, ty = r * np.cos(t), r * np.sin(t)
    s = mlfma2d.solve(mlfma2d.generate_contours("coax", vertices=2048), potentials=[0, volts],
                      targets=(tx, ty))
    f = s.field
    assert isinstance(f, mlfma2d.FieldAtTargets) and s.targets[0] is tx
    lg = np.log(b / a)
    assert np.max(np.abs(f.potential - volts * np.log(b / r) / lg)) < 2e-6
    e = volts / (r * lg)  # radial, outward
    assert np.max(np.hypot(f.ex - e * tx / r, f.ey - e * ty / r) / e) < 1e-5


def test_solver_is_built_once_and_solves_again():
    solver = mlfma2d.ElectrostaticSolver(mlfma2d.generate_contours("two-wire"), panels=800,
                                         capacitance=False, potentials=[0, 1])
    first, second = solver.solve(), solver.solve()
    assert np.array_equal(first.sigma, second.sigma)
    assert first.capacitance.size == 0 and len(first.solves) == 1
    assert solver.conductors == 2 and len(solver.panels) == 800
    assert solver.options["potentials"] == [0, 1] and solver.options["fmm"]["eps"] == 0
    assert solver.timings["solve"] > 0 and first.timings["products"] >= first.iterations
    assert first.fmm_eps == pytest.approx(1e-12) and first.fmm_backend in mlfma2d.backends()
    assert "two-wire" not in repr(first) and "panels=800" in repr(first)


def test_fmm_keywords_reach_the_solver():
    c = mlfma2d.generate_contours("two-wire")
    s = mlfma2d.ElectrostaticSolver(c, panels=600, backend="cpu", eps=1e-9, levels=1, threads=1)
    fmm = s.options["fmm"]
    assert (fmm["backend"], fmm["eps"], fmm["ct"], fmm["level_offset"], fmm["threads"]) == \
        ("cpu", 1e-9, _core.PAPERS_CT, 1, 1)
    assert s.solve().fmm_stats["ct"] == _core.PAPERS_CT


# ---- SciPy's GMRES on the library's operator gives the library's answer

def gmres(operator, rhs, rtol):
    tolerance = "rtol" if "rtol" in inspect.signature(spla().gmres).parameters else "tol"
    x, info = spla().gmres(operator, rhs, atol=0.0, restart=200, maxiter=20,
                           **{tolerance: rtol})
    assert info == 0, f"GMRES did not converge (info {info})"
    return x


def spla():
    return pytest.importorskip("scipy.sparse.linalg")


def test_gmres_matches_solve():
    # Two wires at 0 V and 1 V. Unknowns: u = sigma / eps0 (so that they are of order one) and
    # the constant c; rows: phi(sigma) + c = V on every panel, and no net charge.
    contours = mlfma2d.generate_contours("two-wire", a=1.0, d=4.0, vertices=256)
    potentials = np.array([0.0, 1.0])
    solver = mlfma2d.ElectrostaticSolver(contours, panels=1024, potentials=potentials,
                                         capacitance=False, tol=1e-12)
    reference = solver.solve()
    op = solver.as_linear_operator()
    length = solver.panels.length
    n = len(length)
    assert op.shape == (n, n)
    eps0 = mlfma2d.EPSILON_0

    def bordered(z):
        u, c = z[:n], z[n]
        return np.append(op.matvec(u * eps0) + c, np.dot(length, u) / np.sum(length))

    system = spla().LinearOperator((n + 1, n + 1), matvec=bordered, dtype=np.float64)
    rhs = np.append(potentials[solver.panels.conductor], 0.0)
    z = gmres(system, rhs, 1e-11)
    sigma = z[:n] * eps0
    assert rel_l2(sigma, reference.sigma) < 1e-8
    assert z[n] == pytest.approx(reference.offset, abs=1e-8)
    # And the library's operator is the one its own solve inverted.
    assert np.max(np.abs(op.matvec(reference.sigma) + reference.offset -
                         rhs[:n])) < 1e-9


# ---- Contours and files

def test_contours_from_polygons_are_the_generated_ones():
    g = mlfma2d.generate_contours("two-wire", vertices=16)
    assert g.contours == 2 and g.conductors == 2
    polygons = [(g.x[g.offsets[i]:g.offsets[i + 1]], g.y[g.offsets[i]:g.offsets[i + 1]],
                 bool(g.closed[i]), g.conductor[i]) for i in range(g.contours)]
    c = mlfma2d.Contours.from_polygons(polygons)
    for a, b in zip(c, g):
        assert np.array_equal(a, b)
    c.validate()
    assert set(mlfma2d.contour_shapes()) >= {"coax", "two-wire", "strip", "microstrip"}


def test_contour_and_solution_files_round_trip(tmp_path):
    c = mlfma2d.generate_contours("microstrip")
    path = tmp_path / "geometry.h5"
    mlfma2d.write_contours(path, c, potentials=[0, 1, 2], eps_r=4.5)
    back = mlfma2d.read_contours(path)
    for a, b in zip(back.contours, c):
        assert np.array_equal(a, b)
    assert list(back.potentials) == [0, 1, 2] and back.eps_r == 4.5
    mlfma2d.write_contours(tmp_path / "bare.h5", c)
    bare = mlfma2d.read_contours(tmp_path / "bare.h5")
    assert bare.potentials is None and bare.eps_r is None

    s = mlfma2d.solve(back, panels=900, targets=(np.array([0.0]), np.array([2e-3])))
    # The file's potentials and permittivity apply, as `mlfma2d solve` takes them.
    assert list(s.potentials) == [0, 1, 2] and s.eps_r == 4.5
    out = tmp_path / "solution.h5"
    mlfma2d.write_solution(out, s)
    assert out.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.h5", "geometry.h5",
                                                          "solution.h5"]  # no temporaries


# ---- Every field of the library's structs reaches Python

def test_every_settings_field_reaches_python():
    header = "electrostatics.hpp"
    options = [f for f in struct_fields("ElectrostaticOptions", header) if f != "fmm"]
    assert options[:3] == ["eps_r", "ground_plane", "ground_plane_y"]  # the parser found them
    defaults = _core.default_electrostatic_options()
    assert list(defaults) == options + ["fmm"]
    assert list(defaults["fmm"]) == struct_fields("Options")
    s = mlfma2d.solve(mlfma2d.generate_contours("two-wire", vertices=64), panels=300)
    assert list(s.timings) == struct_fields("ElectrostaticTimings", header)
    assert list(s.solves[0]) == struct_fields("SolveStats", header)
    assert list(s.fmm_stats) == struct_fields("TreeStats")
    assert list(s.panels._fields) == struct_fields("Panels", header)
    assert list(_core.default_contour_shape()) == struct_fields("ContourShape", header)
    assert list(mlfma2d.MeshLevel._fields) == struct_fields("MeshLevel", header)
    assert list(mlfma2d.LineMode._fields) == struct_fields("LineMode", header) + ["label"]
    assert list(mlfma2d.LineParameters._fields) == struct_fields("LineParameters", header)
    assert list(mlfma2d.FieldAtTargets._fields) == ["potential", "ex", "ey", "undefined_field"]


def test_every_row_of_the_solves_tables_reaches_python():
    def rows(struct):
        return [name for name, _, _ in _core.FIELDS[struct]]

    assert list(_core.default_electrostatic_options()) == rows("ElectrostaticOptions")
    assert list(_core.default_contour_shape()) == rows("ContourShape")
    s = mlfma2d.solve(mlfma2d.generate_contours("microstrip-line"), ground_plane_y=0, panels=400,
                      accuracy=0.05)
    assert list(s.timings) == rows("ElectrostaticTimings")
    assert list(s.solves[0]) == rows("SolveStats")
    assert list(s.panels._fields) == rows("Panels")
    assert list(s.line._fields) == rows("LineParameters")
    assert list(s.line.modes[0]._fields) == rows("LineMode") + ["label"]
    assert list(s.meshes[0]._fields) == rows("MeshLevel")
    # Every field of the solution is an attribute, of the core's object and of Solution.
    for name in rows("ElectrostaticSolution"):
        assert hasattr(s._core, name) and hasattr(s, name), name
    # The package's own names for the field at targets, one per row.
    assert len(mlfma2d.FieldAtTargets._fields) == len(rows("FieldAtTargets"))
    # The record types document their fields with units, from the same table.
    assert "x0 (m): panel start point x" in mlfma2d.Panels.__doc__
    assert "velocity (m/s)" in mlfma2d.LineMode.__doc__


# ---- Transmission-line figures, accuracy and meshes by name

def test_line_parameters_accuracy_and_meshes_reach_python():
    s = mlfma2d.solve(mlfma2d.generate_contours("two-wire", vertices=64), panels=300)
    assert isinstance(s.line, mlfma2d.LineParameters)
    assert s.line.inductance.ndim == 2 and s.line.capacitance_vacuum.ndim == 2
    assert all(isinstance(m, mlfma2d.MeshLevel) for m in s.meshes)
    assert len(s.sigma_total) in (0, len(s.sigma))
    assert len(s.panels.eps_left) in (0, len(s.panels))
    # A fixed mesh: no target; "met" never without an estimate below the target.
    assert s.accuracy_target == 0
    assert s.accuracy_met == (bool(np.isfinite(s.accuracy_estimate))
                              and s.accuracy_estimate <= s.accuracy_target)
    assert s.ground_plane is False and s.z0 == s.line.z0
    options = mlfma2d.ElectrostaticSolver(mlfma2d.generate_contours("strip"), accuracy=1e-4,
                                          max_panels=5000, panels=400).options
    assert options["accuracy"] == 1e-4 and options["max_panels"] == 5000
    # A plane's height alone asks for the plane.
    options = mlfma2d.ElectrostaticSolver(mlfma2d.generate_contours("strip"),
                                          ground_plane_y=-1e-3).options
    assert options["ground_plane"] is True and options["ground_plane_y"] == -1e-3


def test_progress_must_be_callable_and_rlgc_needs_a_matrix(tmp_path):
    c = mlfma2d.generate_contours("strip")
    with pytest.raises(TypeError, match="progress must be a callable"):
        mlfma2d.ElectrostaticSolver(c, progress=3)
    s = mlfma2d.solve(c, panels=400)
    with pytest.raises(mlfma2d.InvalidInput, match="no capacitance matrix"):
        mlfma2d.write_rlgc(tmp_path / "strip.rlgc", s)
    assert list(tmp_path.iterdir()) == []


def test_contours_with_arcs_and_regions_from_polygons():
    square = (np.array([0, 1, 1, 0.0]), np.array([0, 0, 1, 1.0]))
    circle = (np.array([3, 5.0]), np.array([0.5, 0.5]))
    box = (np.array([-1, 6, 6, -1.0]), np.array([-1, -1, 2, 2.0]))
    c = mlfma2d.Contours.from_polygons([(*square, True, 0), (*circle, True, 1, [1, 1]),
                                        (*box, True, -1, None, 4.4)])
    assert list(c.bulge) == [0, 0, 0, 0, 1, 1, 0, 0, 0, 0]
    assert list(c.eps_r) == [1, 1, 4.4]
    assert c.conductors == 2
    plain = mlfma2d.Contours.from_polygons([(*square, True, 0)])
    assert len(plain.bulge) == 0 and len(plain.eps_r) == 0


# The ground plane, line parameters, progress calls and NaN fields on panel ends (issue 19).
def test_a_wire_over_ground_has_line_parameters_and_progress(tmp_path):
    a, h = 1e-3, 3e-3
    wire = mlfma2d.Contours.from_polygons([(np.array([-a, a]), np.array([h, h]), True, 0,
                                            [1, 1])])
    lines = []
    s = mlfma2d.solve(wire, ground_plane_y=0.0, accuracy=1e-6, progress=lines.append)
    assert s.ground_plane and s.reference == -1
    assert lines and all(isinstance(x, str) for x in lines)
    c = mlfma2d.EPSILON_0 * 2 * np.pi / np.arccosh(h / a)
    assert s.capacitance[0, 0] == pytest.approx(c, rel=1e-6)
    assert s.eps_eff == pytest.approx(1, rel=1e-9)
    assert s.z0 == pytest.approx(np.sqrt(s.line.inductance[0, 0] / s.capacitance[0, 0]))
    assert s.accuracy_met and s.accuracy_estimate <= 1e-6 and s.meshes
    mlfma2d.write_rlgc(tmp_path / "wire.rlgc", s)
    assert "\n1\n" in (tmp_path / "wire.rlgc").read_text()
    solver = mlfma2d.ElectrostaticSolver(wire, ground_plane_y=0.0, panels=400)
    s = solver.solve()
    p = solver.panels
    f = solver.field(s, (p.x0[3:4], p.y0[3:4]))
    assert np.isfinite(f.potential[0]) and np.isnan(f.ex[0]) and f.undefined_field == 1

    def stop(line):
        raise KeyboardInterrupt("stopped by the progress callback")
    with pytest.raises(KeyboardInterrupt, match="stopped by the progress"):
        mlfma2d.solve(wire, ground_plane_y=0.0, progress=stop)


# ---- Errors: ValueError (InvalidInput) for bad input, with the library's messages

def test_bad_geometry_and_settings_are_named():
    square = [(np.array([0, 1, 1, 0.0]), np.array([0, 0, 1, 1.0]), True, 0)]
    crossing = mlfma2d.Contours.from_polygons(
        square + [(np.array([0.5, 2]), np.array([0.5, 0.5]), False, 1)])
    with pytest.raises(ValueError, match="cross or touch|crosses|touch"):
        mlfma2d.solve(crossing)
    ok = mlfma2d.Contours.from_polygons(square)
    with pytest.raises(mlfma2d.InvalidInput, match="unknown option 'tolerance'"):
        mlfma2d.solve(ok, tolerance=1e-6)
    with pytest.raises(mlfma2d.InvalidInput, match="option restart must be an integer"):
        mlfma2d.solve(ok, restart="many")
    with pytest.raises(mlfma2d.InvalidInput, match=r"total charge is given.*got 2 potential"):
        mlfma2d.solve(ok, potentials=[0, 1])
    two = mlfma2d.generate_contours("two-wire", vertices=16)
    with pytest.raises(mlfma2d.InvalidInput, match="3 potentials given for 2 conductors"):
        mlfma2d.solve(two, potentials=[0, 1, 2])
    with pytest.raises(mlfma2d.InvalidInput, match="unknown parameter 'radius'"):
        mlfma2d.generate_contours("coax", radius=1)
    with pytest.raises(mlfma2d.InvalidInput, match="coax"):
        mlfma2d.generate_contours("triangle")
    with pytest.raises(TypeError, match="closed must be an array of integers"):
        _core.validate_contours(ok.x, ok.y, ok.offsets, np.array([0.5]), ok.conductor)
    with pytest.raises(TypeError, match="mlfma2d.Contours"):
        mlfma2d.solve([1, 2, 3])
    with pytest.raises(mlfma2d.InvalidInput, match=r"b = 0.001 m: expected > a"):
        mlfma2d.coax_capacitance(3e-3, 1e-3)
    with pytest.raises(mlfma2d.InvalidInput, match="must not touch"):
        mlfma2d.two_wire_capacitance(1e-3, 2e-3)
    with pytest.raises(mlfma2d.InvalidInput, match="inside the strip"):
        mlfma2d.strip_sigma(1e-3, 1e-3, 1e-9)
    with pytest.raises(mlfma2d.IoError, match="missing.h5"):
        mlfma2d.read_contours("missing.h5")


def test_a_target_on_a_panel_end_point_has_no_field():
    solver = mlfma2d.ElectrostaticSolver(mlfma2d.generate_contours("two-wire", vertices=64),
                                         panels=400)
    s = solver.solve()
    p = solver.panels
    # A probe on a panel end: the potential's limit, the field NaN and counted, no exception.
    f = solver.field(s, (p.x0[3:4], p.y0[3:4]))
    assert f.undefined_field == 1
    assert np.isnan(f.ex[0]) and np.isnan(f.ey[0])
    assert np.isfinite(f.potential[0])
    with pytest.raises(mlfma2d.InvalidInput, match="densities for 400 panels"):
        solver.potential_at_panels(np.ones(5))


# ---- The GIL is released while the library solves

def test_a_python_thread_runs_while_solve_works():
    solver = mlfma2d.ElectrostaticSolver(mlfma2d.generate_contours("microstrip"), panels=20000,
                                         threads=1, backend="cpu")
    seconds, share = spinner_rate_during(solver.solve)
    assert seconds > 0.1, "solve too short to tell"
    assert share > 0.10, f"spinner ran at {share:.1%} of its rate alone"
