"""The GIL is released while the library computes, and one Solver is safe to share between
Python threads."""
import math
import threading
import time

import numpy as np

import mlfma2d
from conftest import points, spinner_rate_during


def test_a_python_thread_runs_while_evaluate_works():
    x, y, q = points("uniform", 150000)
    # One OpenMP thread, so that a core is left for the Python thread on a small machine; the
    # papers' tree (levels=0: CT 15), slower than the chosen one, so that evaluate lasts.
    solver = mlfma2d.Solver(x, y, eps=1e-10, threads=1, levels=0, backend="cpu")
    # As many evaluations as last about half a second (one took 0.06-0.1 s on the 2-core
    # machine; a faster machine or build would leave too little time to tell).
    t0 = time.perf_counter()
    solver.evaluate(q)
    calls = max(1, math.ceil(0.5 / (time.perf_counter() - t0)))
    seconds, share = spinner_rate_during(lambda: [solver.evaluate(q) for _ in range(calls)])
    # Released, the spinner keeps a large share of its rate, less what other work takes.
    assert seconds > 0.1, "evaluate too short to tell"
    print(f"spinner: {share:.1%} of its rate alone during {seconds:.2f} s")
    assert share > 0.10, f"spinner ran at {share:.1%} of its rate alone"


def test_threads_sharing_one_solver_get_the_results_of_sequential_calls():
    x, y, _ = points("disk", 20000)
    solver = mlfma2d.Solver(x, y, eps=1e-8, field=True)
    rng = np.random.default_rng(3)
    charges = [rng.standard_normal(20000) for _ in range(4)]
    expected = [solver.evaluate(q) for q in charges]
    assert all(np.array_equal(a, b) for a, b in zip(solver.evaluate(charges[0]), expected[0]))
    results = [None] * 4

    def work(k):
        results[k] = [solver.evaluate(charges[k]) for _ in range(3)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        for result in results[k]:
            for a, b in zip(result, expected[k]):
                np.testing.assert_array_equal(a, b)


def test_the_gil_is_released_for_densities_dipoles_and_the_hessian():
    # The same call with every kind (densities.cpp's arguments, one pass of nd = 3), and direct_sum
    # for every kind. 80000 points: 40000 took 0.09 s on the 2-core machine, too short to tell.
    n = 80000
    x, y, q = points("uniform", n)
    rng = np.random.default_rng(4)
    qs, ds, vs = rng.standard_normal((3, n)), rng.standard_normal((3, n)), \
        rng.standard_normal((2, n))
    solver = mlfma2d.Solver(x, y, eps=1e-10, threads=1, levels=0, backend="cpu", densities=3,
                            dipoles=True, hessian=True)
    seconds, share = spinner_rate_during(
        lambda: solver.evaluate(qs, dipole_strengths=ds, dipole_vectors=vs))
    assert seconds > 0.1, "evaluate too short to tell"
    print(f"spinner: {share:.1%} of its rate alone during {seconds:.2f} s (nd = 3, dipoles)")
    assert share > 0.10, f"spinner ran at {share:.1%} of its rate alone"
    seconds, share = spinner_rate_during(lambda: mlfma2d.direct_sum(
        x, y, qs, dipole_strengths=ds, dipole_vectors=vs, hessian=True, which=np.arange(400),
        threads=1))
    assert seconds > 0.1, "direct_sum too short to tell"
    assert share > 0.10, f"spinner ran at {share:.1%} of its rate alone"
