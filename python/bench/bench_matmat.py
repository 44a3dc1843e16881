#!/usr/bin/env python3
"""The SciPy operator's matmat (k columns in one pass of densities=k) against k matvecs.

One operator (Solver(x, y, backend, threads).as_linear_operator() on generate_points(shape, n,
seed)); its first matmat builds the densities=k Solver on the operator's tree (timed apart:
"first"). Then --repeat runs of each, interleaved with the order alternating, so that a change of
load on a shared machine reaches both alike; the figures are medians, the ratio
median(k matvecs) / median(matmat). Each column's relative L2 difference between the two is
printed too (the same tree: rounding only).

Usage (from the repository root, after building):
  PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_matmat.py [--n 20000] [--k 8]
      [--repeat 7] [--threads T] [--json out.json]
"""
import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

import mlfma2d


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("--shape", default="uniform")
    a.add_argument("--n", type=int, default=20000)
    a.add_argument("--seed", type=int, default=4)
    a.add_argument("--k", type=int, default=8)
    a.add_argument("--eps", type=float, default=1e-6)
    a.add_argument("--backend", default="cpu")
    a.add_argument("--threads", type=int, default=None)
    a.add_argument("--repeat", type=int, default=7)
    a.add_argument("--json", default=None)
    args = a.parse_args()

    p = mlfma2d.generate_points(args.shape, args.n, args.seed)
    solver = mlfma2d.Solver(p.x, p.y, eps=args.eps, backend=args.backend, threads=args.threads)
    op = solver.as_linear_operator()
    block = np.random.default_rng(5).standard_normal((args.n, args.k))
    t0 = time.perf_counter()
    together = op.matmat(block)
    first = time.perf_counter() - t0
    apart = np.stack([op.matvec(block[:, j]) for j in range(args.k)], axis=1)
    difference = max(np.linalg.norm(together[:, j] - apart[:, j]) / np.linalg.norm(apart[:, j])
                     for j in range(args.k))

    def run_matmat():
        op.matmat(block)

    def run_matvecs():
        for j in range(args.k):
            op.matvec(block[:, j])

    times = {"matmat": [], "matvecs": []}
    for r in range(args.repeat):
        order = ["matmat", "matvecs"] if r % 2 == 0 else ["matvecs", "matmat"]
        for name in order:
            t0 = time.perf_counter()
            (run_matmat if name == "matmat" else run_matvecs)()
            times[name].append(time.perf_counter() - t0)
    mm, mv = statistics.median(times["matmat"]), statistics.median(times["matvecs"])
    report = {
        "n": args.n, "shape": args.shape, "k": args.k, "eps": args.eps, "backend": args.backend,
        "threads": args.threads or 0, "ct": solver.stats["ct"], "terms": solver.stats["terms"],
        "first_matmat_s": first, "matmat_median_s": mm, "matvecs_median_s": mv,
        "ratio": mv / mm, "max_column_rel_l2": difference, "runs": times,
        "load_average": os.getloadavg(), "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    print(f"N={args.n} {args.shape} k={args.k} eps={args.eps:g} threads={args.threads or 'default'}"
          f" CT={report['ct']} p={report['terms']}: matmat {1e3 * mm:.1f} ms, {args.k} matvecs "
          f"{1e3 * mv:.1f} ms (medians of {args.repeat}), ratio {mv / mm:.2f}x; first matmat with "
          f"its Solver {1e3 * first:.1f} ms; columns differ by <= {difference:.1e}; load average "
          f"{report['load_average'][0]:.1f} on {report['cpus']} CPUs")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
