"""mlfma2d.DistributedSolver from mpi4py (docs/python.md, docs/distributed.md), run by CTest under
mpirun -np 2 (python_test_mpi_np2): every rank passes a scattered part of one point set; the
outputs at its targets must equal the one-process Solver's on the whole set (the same CT: to
rounding), an error on one rank must be raised on every rank, and any mpi4py communicator works.
Skipped, saying why, without mpi4py or without the binding (a build without MPI or mpi4py).
"""
import numpy as np
import pytest

import mlfma2d

MPI = pytest.importorskip("mpi4py.MPI",
                          reason="mpi4py is not installed (Debian: apt-get install python3-mpi4py)")
if mlfma2d.DISTRIBUTED:
    pytest.skip(mlfma2d.DISTRIBUTED, allow_module_level=True)

from conftest import points  # noqa: E402

COMM = MPI.COMM_WORLD
ONE_THREAD = dict(backend="cpu", threads=1, ct=32)


def part(n, comm=COMM):
    """This rank's points of n: scattered (point i to rank i mod size), so every rank holds
    points from everywhere and the solver must move them."""
    return np.arange(n)[comm.rank::comm.size]


def global_rel_l2(value, reference, comm=COMM):
    sums = comm.allreduce(np.array([np.sum((value - reference) ** 2), np.sum(reference ** 2)]))
    return np.sqrt(sums[0] / sums[1])


def test_equals_the_one_process_solver():
    x, y, q = points("clusters", 6000, seed=3, mixed=True)
    mine = part(len(x))
    s = mlfma2d.DistributedSolver(COMM, x[mine], y[mine], field=True, **ONE_THREAD)
    assert s.shape == (len(mine), len(mine))
    phi, ex, ey = s.evaluate(q[mine])
    rphi, rex, rey = mlfma2d.Solver(x, y, field=True, **ONE_THREAD).evaluate(q)
    assert global_rel_l2(phi, rphi[mine]) < 1e-12
    assert global_rel_l2(ex, rex[mine]) < 1e-12
    # The figures: this rank's, and every rank's on the root.
    f = s.figures
    assert (f["rank"], f["ranks"]) == (COMM.rank, COMM.size)
    assert f["caller_sources"] == len(mine)
    everyone = s.gather_figures(0)
    assert len(everyone) == (COMM.size if COMM.rank == 0 else 0)
    if COMM.rank == 0:
        assert sum(g["sources"] for g in everyone) == len(x)
    assert s.stats["n_sources"] == len(x)


def test_separate_targets_densities_dipoles_and_hessian():
    x, y, q = points("uniform", 3000, seed=5)
    tx, ty, _ = points("disk", 700, seed=6)
    nd = 2
    rng = np.random.default_rng(1)
    qq = np.vstack([q, q - 0.5])
    d = rng.random((nd, len(x)))
    v = rng.standard_normal((2, len(x)))
    keywords = dict(densities=nd, dipoles=True, hessian=True, **ONE_THREAD)
    mine, targets = part(len(x)), part(len(tx))
    s = mlfma2d.DistributedSolver(COMM, x[mine], y[mine], (tx[targets], ty[targets]), **keywords)
    r = s.evaluate(qq[:, mine], dipole_strengths=d[:, mine], dipole_vectors=v[:, mine])
    ref = mlfma2d.Solver(x, y, (tx, ty), **keywords).evaluate(qq, dipole_strengths=d,
                                                              dipole_vectors=v)
    assert r.potential.shape == (nd, len(targets))
    for a, b in zip(r, ref):
        if a is not None:
            assert global_rel_l2(a, b[:, targets]) < 1e-12


def test_an_error_on_one_rank_is_raised_on_every_rank():
    x, y, q = points("uniform", 1000)
    mine = part(len(x))
    s = mlfma2d.DistributedSolver(COMM, x[mine], y[mine], **ONE_THREAD)
    wrong = q[mine][:-1] if COMM.rank == COMM.size - 1 else q[mine]
    with pytest.raises(mlfma2d.InvalidInput) as e:
        s.evaluate(wrong)
    if COMM.size > 1:
        assert f"rank {COMM.size - 1}:" in str(e.value)
    # The solver still works after the agreed error.
    assert s.evaluate(q[mine]).shape == (len(mine),)


def test_any_communicator_and_not_a_communicator():
    # Each rank alone in its own communicator: every rank solves the whole set by itself.
    alone = COMM.Split(COMM.rank, 0)
    x, y, q = points("uniform", 800)
    s = mlfma2d.DistributedSolver(alone, x, y, **ONE_THREAD)
    assert s.figures["ranks"] == 1
    ref = mlfma2d.Solver(x, y, **ONE_THREAD).evaluate(q)
    assert np.linalg.norm(s.evaluate(q) - ref) <= 1e-12 * np.linalg.norm(ref)
    alone.Free()
    with pytest.raises(TypeError, match="mpi4py communicator"):
        mlfma2d.DistributedSolver(42, x, y)
