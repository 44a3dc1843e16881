"""Solver.evaluate against direct summation, batches against loops, and the arrays going in and
out (dtypes, order, shapes)."""
import numpy as np
import pytest

import mlfma2d
from conftest import field_rel_l2, points, rel_l2


@pytest.mark.parametrize("mixed", [False, True], ids=["positive", "mixed"])
@pytest.mark.parametrize("eps", [1e-6, 1e-10])
@pytest.mark.parametrize("shape", ["uniform", "circle", "clusters"])
def test_self_evaluation_meets_eps_against_direct_sum(shape, eps, mixed):
    x, y, q = points(shape, 4000, seed=2, mixed=mixed)
    phi, ex, ey = mlfma2d.Solver(x, y, eps=eps, field=True).evaluate(q)
    rphi, rex, rey = mlfma2d.direct_sum(x, y, q, field=True)
    assert rel_l2(phi, rphi) <= eps
    assert field_rel_l2(ex, ey, rex, rey) <= eps


@pytest.mark.parametrize("offset", [0.0, 0.7], ids=["overlapping", "shifted"])
def test_separate_targets_meet_eps_against_direct_sum(offset):
    x, y, q = points("uniform", 3000, seed=3, mixed=True)
    t = mlfma2d.generate_points("disk", 2000, 5)
    targets = (t.x + offset, t.y - offset)
    solver = mlfma2d.Solver(x, y, targets, eps=1e-8, field=True)
    assert solver.shape == (2000, 3000)
    phi, ex, ey = solver.evaluate(q)
    rphi, rex, rey = mlfma2d.direct_sum(x, y, q, targets, field=True)
    assert phi.shape == (2000,)
    assert rel_l2(phi, rphi) <= 1e-8
    assert field_rel_l2(ex, ey, rex, rey) <= 1e-8


def test_direct_sum_which_picks_targets_in_order():
    x, y, q = points("disk", 500, seed=4)
    full, fx, fy = mlfma2d.direct_sum(x, y, q, field=True)
    which = np.array([7, 3, 499, 3])
    part, px, py = mlfma2d.direct_sum(x, y, q, field=True, which=which)
    np.testing.assert_array_equal(part, full[which])
    np.testing.assert_array_equal(px, fx[which])
    np.testing.assert_array_equal(py, fy[which])


def test_potential_only_solver_returns_one_array_equal_to_the_field_solvers_potential():
    x, y, q = points("uniform", 3000, seed=6)
    phi = mlfma2d.Solver(x, y, eps=1e-8).evaluate(q)
    assert isinstance(phi, np.ndarray)
    phi_f, _, _ = mlfma2d.Solver(x, y, eps=1e-8, field=True).evaluate(q)
    assert rel_l2(phi, phi_f) < 1e-13


@pytest.mark.parametrize("field", [False, True])
def test_batch_equals_a_loop_over_rows(field):
    x, y, _ = points("clusters", 3000, seed=7)
    t = mlfma2d.generate_points("uniform", 1000, 8)
    solver = mlfma2d.Solver(x, y, (t.x, t.y), eps=1e-8, field=field)
    rng = np.random.default_rng(1)
    batch = rng.standard_normal((4, 3000))
    out = solver.evaluate(batch)
    outs = out if field else (out,)
    for a in outs:
        assert a.shape == (4, 1000)
    for k in range(4):
        one = solver.evaluate(batch[k])
        ones = one if field else (one,)
        for a, b in zip(outs, ones):
            np.testing.assert_array_equal(a[k], b)


def test_empty_batch_gives_empty_outputs():
    x, y, _ = points("uniform", 100)
    assert mlfma2d.Solver(x, y).evaluate(np.zeros((0, 100))).shape == (0, 100)


def test_outputs_are_new_float64_c_contiguous_arrays():
    x, y, q = points("uniform", 1000)
    solver = mlfma2d.Solver(x, y, field=True)
    for a in solver.evaluate(q):
        assert a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable
        assert a.flags.owndata
        assert not np.shares_memory(a, q)
    first = solver.evaluate(q)[0]
    second = solver.evaluate(q)[0]
    assert not np.shares_memory(first, second)


def test_inputs_of_other_dtypes_orders_and_strides_give_the_same_result():
    x, y, q = points("uniform", 2000, seed=9)
    solver = mlfma2d.Solver(x, y)
    reference = solver.evaluate(q)
    q_int = np.arange(2000) % 7 - 3
    np.testing.assert_array_equal(solver.evaluate(q_int), solver.evaluate(q_int.astype(float)))
    strided = np.repeat(q, 2)[::2]  # a non-contiguous view with the same values
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(solver.evaluate(strided), reference)
    np.testing.assert_array_equal(solver.evaluate(list(q)), reference)
    batch = np.asfortranarray(np.stack([q, 2 * q]))
    np.testing.assert_array_equal(solver.evaluate(batch)[1], solver.evaluate(2 * q))
    # Coordinates: float32 and strided views are converted, lists accepted.
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    from32 = mlfma2d.Solver(x32, y32).evaluate(q)
    from64 = mlfma2d.Solver(x32.astype(float), y32.astype(float)).evaluate(q)
    np.testing.assert_array_equal(from32, from64)
    xs, ys = np.repeat(x, 3)[::3], np.repeat(y, 3)[::3]
    np.testing.assert_array_equal(mlfma2d.Solver(xs, ys).evaluate(q), reference)
    np.testing.assert_array_equal(mlfma2d.Solver(list(x), list(y)).evaluate(q), reference)


def test_evaluate_leaves_the_charges_unchanged():
    x, y, q = points("uniform", 1000)
    before = q.copy()
    q.flags.writeable = False  # read in place: a read-only array is fine
    mlfma2d.Solver(x, y, field=True).evaluate(q)
    np.testing.assert_array_equal(q, before)


def test_timings_and_stats_describe_the_evaluation():
    x, y, q = points("uniform", 5000)
    solver = mlfma2d.Solver(x, y, field=True)
    assert solver.timings["total"] == 0  # nothing evaluated yet
    assert solver.timings["tree"] > 0
    solver.evaluate(q)
    t = solver.timings
    assert all(isinstance(v, float) for v in t.values())
    assert t["total"] > 0 and t["far"] > 0 and t["near"] > 0
    assert t["total"] >= max(t["far"], t["near"])
    s = solver.stats
    assert (s["n_sources"], s["n_targets"], s["self"]) == (5000, 5000, True)
    assert s["terms"] == mlfma2d.terms_for_eps(1e-6)
    # The depth chosen by the cost model (the default): its CT, offset 0 on the adaptive tree.
    assert s["t"] <= s["ct"] == solver.auto_choice["ct"]
    assert solver.auto_choice["ct_chosen"] and solver.auto_choice["reason"]
    assert s["levels"] == s["levels_ct"]
