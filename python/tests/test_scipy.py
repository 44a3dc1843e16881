"""Solver.as_linear_operator with SciPy's iterative solvers.

The system solved is a second-kind one, (K + alpha I) sigma = b with K_ij = log|x_i - x_j|
(K_ii = 0, the pair skipped), well conditioned for alpha = -20 on these points (checked below).
SciPy's GMRES on the electrostatic solve's own operator, matching mlfma2d.solve: test_solve.py.
"""
import inspect
import re
import sys

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
