"""Solver.as_linear_operator with SciPy's iterative solvers.

The system solved is a second-kind one, (K + alpha I) sigma = b with K_ij = log|x_i - x_j|
(K_ii = 0, the pair skipped), well conditioned for alpha = -20 on these points (checked below).
SciPy's GMRES on the electrostatic solve's own operator, matching mlfma2d.solve: test_solve.py.
"""
import inspect
import re
import sys
import time

import numpy as np
import pytest

import mlfma2d
from conftest import points, rel_l2

spla = pytest.importorskip("scipy.sparse.linalg")

ALPHA = -20.0


def dense_log_matrix(x, y, tx=None, ty=None):
    """log|t_i - s_j| with coincident pairs 0, as the library defines the sum."""
    tx, ty = (x, y) if tx is None else (tx, ty)
    d = np.hypot(tx[:, None] - x[None, :], ty[:, None] - y[None, :])
    with np.errstate(divide="ignore"):
        return np.where(d > 0, np.log(d), 0.0)


def gmres_solve(operator, diagonal, rhs, rtol=1e-12):
    """Solve (operator + diagonal I) sigma = rhs with SciPy's GMRES; returns sigma."""
    n = operator.shape[1]
    system = operator + diagonal * spla.aslinearoperator(np.eye(n))
    # SciPy renamed tol to rtol (1.12) and later removed tol; Debian 12 has 1.10.
    tolerance = "rtol" if "rtol" in inspect.signature(spla.gmres).parameters else "tol"
    sigma, info = spla.gmres(system, rhs, atol=0.0, restart=n, maxiter=n, **{tolerance: rtol})
    assert info == 0, f"GMRES did not converge (info {info})"
    return sigma


@pytest.fixture(scope="module")
def system():
    x, y, _ = points("uniform", 400, seed=2)
    rhs = np.cos(3 * x) + y  # a smooth right-hand side
    return x, y, rhs


def test_the_system_is_well_conditioned(system):
    x, y, _ = system
    assert np.linalg.cond(dense_log_matrix(x, y) + ALPHA * np.eye(len(x))) < 100


def test_gmres_on_the_operator_matches_a_dense_solve(system):
    x, y, rhs = system
    operator = mlfma2d.Solver(x, y, eps=1e-12).as_linear_operator()
    sigma = gmres_solve(operator, ALPHA, rhs)
    dense = np.linalg.solve(dense_log_matrix(x, y) + ALPHA * np.eye(len(x)), rhs)
    assert rel_l2(sigma, dense) < 1e-9


def test_operator_products_are_the_matrix_products():
    x, y, _ = points("disk", 600, seed=3)
    t = mlfma2d.generate_points("uniform", 300, 4)
    rng = np.random.default_rng(5)
    v, block = rng.standard_normal(600), rng.standard_normal((600, 3))

    self_op = mlfma2d.Solver(x, y, eps=1e-12).as_linear_operator()
    K = dense_log_matrix(x, y)
    assert self_op.shape == (600, 600) and self_op.dtype == np.float64
    assert rel_l2(self_op.matvec(v), K @ v) < 1e-11
    assert rel_l2(self_op @ v.reshape(-1, 1), (K @ v).reshape(-1, 1)) < 1e-11
    assert rel_l2(self_op.matmat(block), K @ block) < 1e-11
    assert rel_l2(self_op.rmatvec(v), K.T @ v) < 1e-11  # symmetric: the same product

    # Separate targets: (300, 600), no transpose product. A field solver gives the potential.
    op = mlfma2d.Solver(x, y, (t.x, t.y), eps=1e-12, field=True).as_linear_operator()
    assert op.shape == (300, 600)
    assert rel_l2(op.matvec(v), dense_log_matrix(x, y, t.x, t.y) @ v) < 1e-11
    with pytest.raises(NotImplementedError):
        op.rmatvec(np.ones(300))


def test_without_scipy_the_error_says_what_to_install(monkeypatch):
    x, y, _ = points("uniform", 50)
    solver = mlfma2d.Solver(x, y)
    monkeypatch.setitem(sys.modules, "scipy.sparse.linalg", None)  # import now fails
    message = ("Solver.as_linear_operator needs SciPy (Debian: apt-get install python3-scipy; "
               "pip: pip install scipy)")
    with pytest.raises(ImportError, match="^" + re.escape(message) + "$"):
        solver.as_linear_operator()


def dense_dipole_matrix(x, y, v, tx=None, ty=None):
    """v_j . (t_i - s_j) / |t_i - s_j|^2, coincident pairs 0: the potential of unit strengths."""
    tx, ty = (x, y) if tx is None else (tx, ty)
    rx, ry = tx[:, None] - x[None, :], ty[:, None] - y[None, :]
    r2 = rx ** 2 + ry ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r2 > 0, (v[0][None, :] * rx + v[1][None, :] * ry) / r2, 0.0)


def test_matmat_is_one_pass_equal_to_column_by_column_matvec():
    # k = 8 columns: one evaluation of densities=8 (a Solver on this tree, built on the first
    # block and kept) against 8 matvecs on the densities=1 Solver; both within eps of direct_sum.
    # The times are printed (pytest -s), not asserted: the machine is shared.
    eps, k = 1e-6, 8
    x, y, _ = points("uniform", 20000, seed=6)
    solver = mlfma2d.Solver(x, y, eps=eps, backend="cpu")
    op = solver.as_linear_operator()
    block = np.random.default_rng(7).standard_normal((20000, k))
    t0 = time.perf_counter()
    first = op.matmat(block)  # builds the densities=8 Solver
    t1 = time.perf_counter()
    together = op.matmat(block)
    t2 = time.perf_counter()
    apart = np.stack([op.matvec(block[:, j]) for j in range(k)], axis=1)
    t3 = time.perf_counter()
    print(f"\nN = 20000, eps = {eps:g}, k = {k}: matmat {1e3 * (t2 - t1):.1f} ms (first, with its "
          f"Solver: {1e3 * (t1 - t0):.1f} ms), {k} matvecs {1e3 * (t3 - t2):.1f} ms "
          f"({(t3 - t2) / (t2 - t1):.2f}x)")
    assert together.shape == (20000, k)
    np.testing.assert_array_equal(first, together)  # the kept Solver, the same answer
    (kept,) = solver._variants.values()  # on this tree: no cost model ran for nd = 8
    assert (kept.densities, kept.field, kept.stats["ct"], kept.stats["levels"]) == (
        k, False, solver.stats["ct"], solver.stats["levels"])
    assert kept.timings["choose"] == 0
    sample = np.arange(0, 20000, 97)
    for j in range(k):
        # Within eps, and closer: the same tree, p and back end, so rounding apart (3e-16).
        assert rel_l2(together[:, j], apart[:, j]) <= 1e-13
        reference = mlfma2d.direct_sum(x, y, block[:, j], which=sample)
        assert rel_l2(together[sample, j], reference) <= eps


def test_the_dipole_operator_is_the_dipole_matrix():
    x, y, _ = points("disk", 500, seed=8)
    t = mlfma2d.generate_points("uniform", 300, 9)
    rng = np.random.default_rng(10)
    v = rng.standard_normal((2, 500))
    w, block = rng.standard_normal(500), rng.standard_normal((500, 4))
    op = mlfma2d.Solver(x, y, (t.x, t.y), eps=1e-12, charges=False, dipoles=True,
                        hessian=True).as_linear_operator(dipole_vectors=v)
    D = dense_dipole_matrix(x, y, v, t.x, t.y)
    assert op.shape == (300, 500)
    assert rel_l2(op.matvec(w), D @ w) < 1e-11
    assert rel_l2(op.matmat(block), D @ block) < 1e-11
    self_op = mlfma2d.Solver(x, y, eps=1e-12, charges=False,
                             dipoles=True).as_linear_operator(dipole_vectors=v)
    assert rel_l2(self_op.matvec(w), dense_dipole_matrix(x, y, v) @ w) < 1e-11
    with pytest.raises(NotImplementedError):  # not symmetric
        self_op.rmatvec(w)


def test_matmat_of_more_than_1024_columns_goes_in_blocks():
    x, y, _ = points("uniform", 40, seed=11)
    solver = mlfma2d.Solver(x, y, eps=1e-12)
    block = np.random.default_rng(12).standard_normal((40, 1030))
    product = solver.as_linear_operator().matmat(block)
    assert rel_l2(product, dense_log_matrix(x, y) @ block) < 1e-11
    assert [s.densities for s in solver._variants.values()] == [515]  # 2 blocks of 515


def test_the_operator_of_a_solver_of_several_densities():
    # Its own nd columns go to it; matvec to a densities=1 Solver of the same geometry.
    x, y, _ = points("uniform", 300, seed=13)
    solver = mlfma2d.Solver(x, y, eps=1e-12, densities=3, field=True, ct=16)
    op = solver.as_linear_operator()
    K = dense_log_matrix(x, y)
    block = np.random.default_rng(14).standard_normal((300, 3))
    assert rel_l2(op.matmat(block), K @ block) < 1e-11
    assert not solver._variants
    assert rel_l2(op.matvec(block[:, 0]), K @ block[:, 0]) < 1e-11
    assert op.matmat(np.zeros((300, 0))).shape == (300, 0)


def test_operator_arguments_that_do_not_fit():
    x, y, _ = points("uniform", 50)
    invalid = mlfma2d.InvalidInput
    with pytest.raises(invalid, match="^as_linear_operator: the Solver takes charges and dipoles; "
                                      "the operator maps one kind: build it with one$"):
        mlfma2d.Solver(x, y, dipoles=True).as_linear_operator(np.ones((2, 50)))
    with pytest.raises(invalid, match=r"^as_linear_operator: a Solver of dipoles needs "
                                      r"dipole_vectors, shape \(2, n_sources\)$"):
        mlfma2d.Solver(x, y, charges=False, dipoles=True).as_linear_operator()
    with pytest.raises(invalid, match=r"^as_linear_operator: dipole_vectors must have shape "
                                      r"\(2, 50\), got \(2, 49\)$"):
        mlfma2d.Solver(x, y, charges=False, dipoles=True).as_linear_operator(np.ones((2, 49)))
    with pytest.raises(invalid, match="^as_linear_operator: dipole_vectors given, but the Solver "
                                      "was built with dipoles=False$"):
        mlfma2d.Solver(x, y).as_linear_operator(np.ones((2, 50)))
