"""Several densities, dipoles and the Hessian (issue 22) from Python: every kind of source
(charges, dipoles, both) with every output (potential, field, Hessian) for nd = 1 and 3, the
Solver against direct_sum and direct_sum against the formula written out here in NumPy; shapes,
batches, dtypes and the errors for arrays that do not fit."""
import re

import numpy as np
import pytest

import mlfma2d
from conftest import field_rel_l2, points, rel_l2

N, M = 200, 150
EPS = 1e-8


def formula(x, y, tx, ty, q=None, d=None, v=None):
    """phi, ex, ey, hxx, hxy, hyy at the targets, each (nd, m), for charges q and dipoles d v
    (q, d: (nd, n); v: (nd, 2, n)), pairs whose points coincide skipped.

    phi = sum q log|z| + Re(mu / z), z = (tx - x) + i (ty - y), mu = d (v_x + i v_y), is
    Re F(z) with F = q log z + mu / z analytic, so grad phi = (Re F', -Im F') and the Hessian is
    (Re F'', -Im F'', -Re F''): F' = q / z - mu / z^2, F'' = -q / z^2 + 2 mu / z^3.
    """
    z = (tx[:, None] - x[None, :]) + 1j * (ty[:, None] - y[None, :])  # (m, n)
    paired = z != 0
    z = np.where(paired, z, 1.0)  # skipped pairs: any non-zero value, their weight is 0
    nd = len(q if q is not None else d)
    q = np.zeros((nd, len(x))) if q is None else q
    mu = np.zeros((nd, len(x))) if d is None else d * (v[:, 0] + 1j * v[:, 1])
    q, mu = q[:, None, :] * paired, mu[:, None, :] * paired  # (nd, 1, n) x (m, n)
    phi = np.sum(q * np.log(np.abs(z)) + (mu / z).real, axis=2)
    f1 = np.sum(q / z - mu / z ** 2, axis=2)
    f2 = np.sum(-q / z ** 2 + 2 * mu / z ** 3, axis=2)
    return phi, -f1.real, f1.imag, f2.real, -f2.imag, -f2.real


def test_the_formula_is_its_own_derivatives():
    # Central differences of the NumPy phi: the test's own formula for E and H is right.
    rng = np.random.default_rng(1)
    x, y = rng.random(5), rng.random(5)
    q, d = rng.standard_normal((1, 5)), rng.standard_normal((1, 5))
    v = rng.standard_normal((1, 2, 5))
    tx, ty, h = np.array([1.7]), np.array([-0.4]), 1e-4
    at = lambda dx, dy: formula(x, y, tx + dx, ty + dy, q, d, v)  # noqa: E731
    phi, ex, ey, hxx, hxy, hyy = at(0, 0)
    assert -(at(h, 0)[0] - at(-h, 0)[0]) / (2 * h) == pytest.approx(ex, rel=1e-7)
    assert -(at(0, h)[0] - at(0, -h)[0]) / (2 * h) == pytest.approx(ey, rel=1e-7)
    assert -(at(h, 0)[1] - at(-h, 0)[1]) / (2 * h) == pytest.approx(hxx, rel=1e-7)
    assert -(at(0, h)[1] - at(0, -h)[1]) / (2 * h) == pytest.approx(hxy, rel=1e-7)
    assert -(at(0, h)[2] - at(0, -h)[2]) / (2 * h) == pytest.approx(hyy, rel=1e-7)


@pytest.fixture(scope="module")
def geometry():
    x, y, _ = points("clusters", N, seed=3)
    t = mlfma2d.generate_points("disk", M, 4)
    return x, y, t.x, t.y


def strengths(nd, charges, dipoles, seed=7):
    """q, d (nd, n) and v (nd, 2, n): random, those of the kinds asked, the others None."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((nd, N)) if charges else None
    d = rng.standard_normal((nd, N)) if dipoles else None
    v = rng.standard_normal((nd, 2, N)) if dipoles else None  # not unit: the moment is d v
    return q, d, v


KINDS = {"charges": (True, False), "dipoles": (False, True), "both": (True, True)}
OUTPUTS = {"potential": (False, False), "field": (True, False), "hessian": (False, True),
           "field+hessian": (True, True)}


def outputs(r, field, hessian):
    """(phi, ex, ey, hxx, hxy, hyy) of an evaluate() or direct_sum() result, None where absent,
    checking the return type the page promises for each kind of output."""
    if hessian:
        assert isinstance(r, mlfma2d.Result)
        assert (r.field_x is None) == (not field) and (r.field_y is None) == (not field)
        return tuple(r)
    if field:
        assert type(r) is tuple and len(r) == 3
        return r + (None, None, None)
    assert isinstance(r, np.ndarray)
    return (r, None, None, None, None, None)


@pytest.mark.parametrize("nd", [1, 3])
@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("self_targets", [True, False], ids=["self", "targets"])
def test_every_combination_against_direct_sum_and_the_formula(geometry, kind, output, nd,
                                                              self_targets):
    x, y, tx, ty = geometry
    targets = None if self_targets else (tx, ty)
    if self_targets:
        tx, ty = x, y
    charges, dipoles = KINDS[kind]
    field, hessian = OUTPUTS[output]
    q, d, v = strengths(nd, charges, dipoles)
    if nd == 1:  # 1-D in, 1-D out; one orientation per source, (2, n)
        q, d, v = (None if a is None else a[0] for a in (q, d, v))
    solver = mlfma2d.Solver(x, y, targets, eps=EPS, ct=4, backend="cpu", field=field,
                            hessian=hessian, densities=nd, charges=charges, dipoles=dipoles)
    assert solver.stats["m2l_pairs"] > 0  # the far field takes part
    fmm = outputs(solver.evaluate(q, dipole_strengths=d, dipole_vectors=v), field, hessian)
    ref = outputs(mlfma2d.direct_sum(x, y, q, targets, dipole_strengths=d, dipole_vectors=v,
                                     field=field, hessian=hessian), field, hessian)
    shape = (len(tx),) if nd == 1 else (nd, len(tx))
    for a, b in zip(fmm, ref):
        assert (a is None) == (b is None)
        assert a is None or (a.shape == b.shape == shape and a.dtype == np.float64)

    # direct_sum against the formula, 2-D: (nd, m).
    two_d = [None if a is None else np.reshape(a, (nd, N)) for a in (q, d)]
    exact = formula(x, y, tx, ty, *two_d, None if v is None else np.reshape(v, (nd, 2, N)))
    ref2 = [None if a is None else np.reshape(a, (nd, -1)) for a in ref]
    fmm2 = [None if a is None else np.reshape(a, (nd, -1)) for a in fmm]
    for k in range(nd):
        assert rel_l2(ref2[0][k], exact[0][k]) < 1e-12
        assert rel_l2(fmm2[0][k], ref2[0][k]) <= EPS, f"density {k}: potential"
        if field:
            assert field_rel_l2(ref2[1][k], ref2[2][k], exact[1][k], exact[2][k]) < 1e-12
            assert field_rel_l2(fmm2[1][k], fmm2[2][k], ref2[1][k], ref2[2][k]) <= EPS
        if hessian:
            assert field_rel_l2(ref2[3][k], ref2[4][k], exact[3][k], exact[4][k]) < 1e-12
            np.testing.assert_allclose(ref2[5][k], exact[5][k], rtol=0, atol=1e-12 * np.max(
                np.abs(exact[5][k])))
            assert field_rel_l2(fmm2[3][k], fmm2[4][k], ref2[3][k], ref2[4][k]) <= EPS
            np.testing.assert_array_equal(fmm2[5][k], -fmm2[3][k])


def test_a_pass_of_nd_densities_is_nd_single_evaluations(geometry):
    # Rows of one (3, n) pass against three densities=1 Solvers' answers, each within eps of the
    # same reference; and shared orientations (2, n) are per-density ones repeated.
    x, y, tx, ty = geometry
    q, d, v = strengths(3, True, True, seed=9)
    kw = dict(eps=EPS, ct=4, backend="cpu", field=True, hessian=True, dipoles=True)
    many = mlfma2d.Solver(x, y, (tx, ty), densities=3, **kw)
    one = mlfma2d.Solver(x, y, (tx, ty), **kw)
    shared = many.evaluate(q, dipole_strengths=d, dipole_vectors=v[0])
    repeated = many.evaluate(q, dipole_strengths=d, dipole_vectors=np.stack([v[0]] * 3))
    for a, b in zip(shared, repeated):
        np.testing.assert_array_equal(a, b)
    for k in range(3):
        single = one.evaluate(q[k], dipole_strengths=d[k], dipole_vectors=v[0])
        for a, b in zip(shared, single):
            assert rel_l2(a[k], b) <= 2 * EPS


def test_a_batch_of_dipoles_on_one_density_is_a_loop_over_rows(geometry):
    # densities=1 keeps taking (k, n): k passes, each row exactly its own evaluation; orientations
    # (2, n) for every row or (k, 2, n) one set per row.
    x, y, _, _ = geometry
    q, d, v = strengths(4, True, True, seed=10)
    solver = mlfma2d.Solver(x, y, eps=1e-6, dipoles=True, hessian=True)
    for vectors, row_vectors in [(v[0], lambda k: v[0]), (v, lambda k: v[k])]:
        batch = solver.evaluate(q, dipole_strengths=d, dipole_vectors=vectors)
        assert batch.potential.shape == (4, N)
        for k in range(4):
            one = solver.evaluate(q[k], dipole_strengths=d[k], dipole_vectors=row_vectors(k))
            np.testing.assert_array_equal(batch.potential[k], one.potential)
            np.testing.assert_array_equal(batch.hessian_xy[k], one.hessian_xy)
    empty = solver.evaluate(np.zeros((0, N)), dipole_strengths=np.zeros((0, N)),
                            dipole_vectors=v[0])
    assert empty.potential.shape == empty.hessian_xx.shape == (0, N)


def test_strengths_of_other_dtypes_and_layouts_give_the_same_result(geometry):
    # float64 C order is read in place; Fortran order, strides, float32, lists are converted.
    x, y, _, _ = geometry
    q, d, v = strengths(3, True, True, seed=12)
    solver = mlfma2d.Solver(x, y, densities=3, dipoles=True, field=True, ct=16)
    reference = solver.evaluate(q, dipole_strengths=d, dipole_vectors=v)
    variants = [
        (np.asfortranarray(q), np.asfortranarray(d), np.asfortranarray(v)),
        (np.repeat(q, 2, axis=1)[:, ::2], d.tolist(), v.tolist()),
    ]
    for qq, dd, vv in variants:
        for a, b in zip(solver.evaluate(qq, dipole_strengths=dd, dipole_vectors=vv), reference):
            np.testing.assert_array_equal(a, b)
    q.setflags(write=False)  # read-only input is fine, and left as it was
    before = q.copy()
    solver.evaluate(q, dipole_strengths=d, dipole_vectors=v)
    np.testing.assert_array_equal(q, before)
    f32 = solver.evaluate(q.astype(np.float32), dipole_strengths=d.astype(np.float32),
                          dipole_vectors=v.astype(np.float32))
    exact32 = solver.evaluate(q.astype(np.float32).astype(float),
                              dipole_strengths=d.astype(np.float32).astype(float),
                              dipole_vectors=v.astype(np.float32).astype(float))
    np.testing.assert_array_equal(f32[0], exact32[0])


def test_direct_sum_takes_which_and_any_nd(geometry):
    x, y, tx, ty = geometry
    q, d, v = strengths(5, True, True, seed=13)
    full = mlfma2d.direct_sum(x, y, q, (tx, ty), dipole_strengths=d, dipole_vectors=v,
                              hessian=True)
    some = mlfma2d.direct_sum(x, y, q, (tx, ty), dipole_strengths=d, dipole_vectors=v,
                              hessian=True, which=[7, 3])
    assert some.potential.shape == (5, 2) and some.field_x is None
    for a, b in zip(some[3:], full[3:]):
        np.testing.assert_array_equal(a, b[:, [7, 3]])
    # No indices is every target, as the library has it (and as before densities).
    every = mlfma2d.direct_sum(x, y, q, (tx, ty), dipole_strengths=d, dipole_vectors=v,
                               hessian=True, which=np.array([], dtype=int))
    for a, b in zip(every[3:], full[3:]):
        np.testing.assert_array_equal(a, b)
    dipoles_only = mlfma2d.direct_sum(x, y, dipole_strengths=d[0], dipole_vectors=v[0])
    assert dipoles_only.shape == (N,)


def test_the_options_and_properties_say_what_the_solver_takes():
    x, y, _ = points("uniform", 100)
    s = mlfma2d.Solver(x, y, densities=4, charges=False, dipoles=True, hessian=True, ct=16)
    assert (s.densities, s.charges, s.dipoles, s.hessian, s.field) == (4, False, True, True, False)
    assert {k: s.options[k] for k in ("densities", "charges", "dipoles", "hessian")} == {
        "densities": 4, "charges": False, "dipoles": True, "hessian": True}
    assert repr(s).endswith("field=False, hessian=True, densities=4, charges=False, dipoles=True)")
    plain = mlfma2d.Solver(x, y)
    assert (plain.densities, plain.charges, plain.dipoles, plain.hessian) == (1, True, False, False)


# --- Errors: InvalidInput (a ValueError) naming the array and the shape it must have. (ct is
# given wherever densities > 1: ct=None would calibrate the cost model for that nd, seconds.)

def raises_invalid(message):
    return pytest.raises(mlfma2d.InvalidInput, match="^" + re.escape(message) + "$")


def test_shapes_that_do_not_fit_the_solver():
    x, y, _ = points("uniform", 100)
    three = mlfma2d.Solver(x, y, densities=3, ct=16)
    with raises_invalid("q must have shape (3, 100) (densities=3), got (100,)"):
        three.evaluate(np.zeros(100))
    with raises_invalid("q must have shape (3, 100) (densities=3), got (2, 100)"):
        three.evaluate(np.zeros((2, 100)))
    with raises_invalid("expected 100 charges per row, got 99"):
        three.evaluate(np.zeros((3, 99)))
    with raises_invalid("q must be a 1-D or 2-D array, got 3-D"):
        three.evaluate(np.zeros((3, 1, 100)))

    dip = mlfma2d.Solver(x, y, densities=3, dipoles=True, ct=16)
    q, d, v = np.zeros((3, 100)), np.zeros((3, 100)), np.zeros((2, 100))
    with raises_invalid("expected 100 dipole strengths per row, got 98"):
        dip.evaluate(q, dipole_strengths=np.zeros((3, 98)), dipole_vectors=v)
    with raises_invalid("q and dipole_strengths differ in shape: (3, 100) and (2, 100)"):
        dip.evaluate(q, dipole_strengths=np.zeros((2, 100)), dipole_vectors=v)
    with raises_invalid("dipole_vectors must have shape (2, 100) or (3, 2, 100), got (3, 100)"):
        dip.evaluate(q, dipole_strengths=d, dipole_vectors=np.zeros((3, 100)))
    with raises_invalid("dipole_vectors must have shape (2, 100) or (3, 2, 100), got (2, 2, 100)"):
        dip.evaluate(q, dipole_strengths=d, dipole_vectors=np.zeros((2, 2, 100)))
    with raises_invalid("dipole_vectors must be a 2-D or 3-D array, got 1-D"):
        dip.evaluate(q, dipole_strengths=d, dipole_vectors=np.zeros(100))
    with pytest.raises(TypeError, match="^dipole_strengths must be an array of real numbers, "
                                        "got dtype complex128$"):
        dip.evaluate(q, dipole_strengths=d.astype(complex), dipole_vectors=v)


def test_missing_and_unwanted_arrays():
    x, y, _ = points("uniform", 100)
    q, d, v = np.zeros(100), np.zeros(100), np.zeros((2, 100))
    dip = mlfma2d.Solver(x, y, dipoles=True)
    message = ("dipole_strengths and dipole_vectors are needed: the Solver was built with "
               "dipoles=True")
    for kw in ({}, {"dipole_strengths": d}, {"dipole_vectors": v}):
        with raises_invalid(message):
            dip.evaluate(q, **kw)
    with raises_invalid("dipole_strengths given, but the Solver was built with dipoles=False"):
        mlfma2d.Solver(x, y).evaluate(q, dipole_strengths=d, dipole_vectors=v)
    only = mlfma2d.Solver(x, y, charges=False, dipoles=True)
    with raises_invalid("q given, but the Solver was built with charges=False"):
        only.evaluate(q, dipole_strengths=d, dipole_vectors=v)
    with pytest.raises(TypeError, match="^q must be an array of real numbers, got None$"):
        mlfma2d.Solver(x, y).evaluate()


def test_option_values_the_library_refuses():
    x, y, _ = points("uniform", 100)
    with raises_invalid("densities must be in 1..1024, got 0"):
        mlfma2d.Solver(x, y, densities=0)
    with raises_invalid("densities must be in 1..1024, got 1025"):
        mlfma2d.Solver(x, y, densities=1025)
    with raises_invalid("the sources carry neither charges nor dipoles: set charges or dipoles"):
        mlfma2d.Solver(x, y, charges=False)
    with raises_invalid("option densities must be an integer, got 1.5"):
        mlfma2d.Solver(x, y, densities=1.5)


def test_direct_sum_errors():
    x, y = [0.0, 1.0], [0.0, 1.0]
    with raises_invalid("direct_sum: dipole_strengths and dipole_vectors go together"):
        mlfma2d.direct_sum(x, y, dipole_strengths=[1.0, 1.0])
    with raises_invalid("direct_sum: dipole_strengths and dipole_vectors go together"):
        mlfma2d.direct_sum(x, y, [1.0, 1.0], dipole_vectors=np.ones((2, 2)))
    with raises_invalid(
            "direct_sum: no sources' strengths: give q, or dipole_strengths and dipole_vectors"):
        mlfma2d.direct_sum(x, y)
    with raises_invalid("direct_sum: source x, y and dipole_strengths must have equal lengths"):
        mlfma2d.direct_sum(x, y, dipole_strengths=[1.0], dipole_vectors=np.ones((2, 2)))
    with raises_invalid("direct_sum: dipole_vectors must have shape (2, 2) or (1, 2, 2), "
                        "got (2, 3)"):
        mlfma2d.direct_sum(x, y, dipole_strengths=[1.0, 1.0], dipole_vectors=np.ones((2, 3)))
    with raises_invalid("dipole orientation y of source 1 is not finite"):
        mlfma2d.direct_sum(x, y, dipole_strengths=[1.0, 1.0], dipole_vectors=[[0, 0], [0, np.inf]])
    with raises_invalid("dipole strength 0 of density 1 is not finite"):
        mlfma2d.direct_sum(x, y, dipole_strengths=[[1, 1], [np.nan, 1]],
                           dipole_vectors=np.ones((2, 2)))
