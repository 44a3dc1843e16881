#!/usr/bin/env python3
"""What the Python module adds to an evaluation: Solver.evaluate from Python vs the same call
from C++.

Both sides on one machine in one run, same point set (generate_points(shape, n, seed)), same
Options (eps, back end, threads: --threads, or the OpenMP default of both processes):

  C++:    mlfma2d_bench_overhead (python/bench/overhead.cpp) builds the Solver in its own process
          and times `solver.evaluate(q, phi, ex, ey)` (pointer overload, outputs allocated once)
          with steady_clock, one evaluation per request from this script.
  Python: this script times `solver.evaluate(q)` with time.perf_counter: checking q, allocating
          the NumPy outputs, releasing and retaking the GIL included.

The runs interleave (C++, Python, Python, C++, ...: the order alternates), so that a change of
load on a shared machine reaches both sides alike; each side warms up once first. Figures:

  overhead       median(Python) / median(C++) - 1, over --repeat runs each: the criterion (<= 5 %).
  binding        median over the Python runs of (perf_counter around the call - the library's
                 Timings.total of that call): the binding's own time, measured within one call,
                 free of the noise between runs; what "overhead" estimates.

Usage (from the repository root, after building):
  PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_overhead.py [--n 100000]
      [--repeat 15] [--threads T] [--cpp build/python/mlfma2d_bench_overhead] [--json out.json]
Prints a table; writes JSON with every run's times; exits 1 when an overhead exceeds --limit.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import mlfma2d


class CppSide:
    """The C++ program, evaluating once per request."""

    def __init__(self, args, field):
        cmd = [args.cpp, "--n", str(args.n), "--shape", args.shape, "--seed", str(args.seed),
               "--eps", repr(args.eps), "--backend", args.backend]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if field:
            cmd.append("--field")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.header = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"bench_overhead: {self.proc.args[0]} ended (exit {self.proc.wait()})")
        return json.loads(line)

    def evaluate(self):
        self.proc.stdin.write("evaluate\n")
        self.proc.stdin.flush()
        return self._read()["wall"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def measure(args, field):
    points = mlfma2d.generate_points(args.shape, args.n, args.seed)
    solver = mlfma2d.Solver(points.x, points.y, eps=args.eps, backend=args.backend, field=field,
                            threads=args.threads)
    cpp = CppSide(args, field)
    mine = (solver.stats["levels"], solver.stats["terms"])
    if (cpp.header["levels"], cpp.header["terms"]) != mine:
        sys.exit(f"bench_overhead: the C++ solver differs (levels, terms): {cpp.header} vs {mine}")

    def python_run():
        t0 = time.perf_counter()
        solver.evaluate(points.q)
        wall = time.perf_counter() - t0
        return wall, solver.timings["total"]

    python_run()  # warm-up (the C++ side warmed up before its header)
    cpp_wall, py_wall, py_total = [], [], []
    for i in range(args.repeat):
        if i % 2 == 0:
            cpp_wall.append(cpp.evaluate())
        w, t = python_run()
        py_wall.append(w)
        py_total.append(t)
        if i % 2 == 1:
            cpp_wall.append(cpp.evaluate())
    cpp.close()
    c, p = statistics.median(cpp_wall), statistics.median(py_wall)
    binding = statistics.median(w - t for w, t in zip(py_wall, py_total))
    return {"n": args.n, "field": field, "levels": mine[0], "terms": mine[1],
            "cpp_median_s": c, "python_median_s": p, "overhead": p / c - 1,
            "binding_median_s": binding, "binding_share": binding / p,
            "cpp_wall_s": cpp_wall, "python_wall_s": py_wall, "python_library_total_s": py_total}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--shape", default="uniform")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eps", type=float, default=1e-6)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, help="OpenMP threads of both sides (default: OpenMP's)")
    ap.add_argument("--repeat", type=int, default=15, help="timed evaluations per side and case")
    ap.add_argument("--cpp", default=os.path.join(here, "..", "..", "build", "python",
                                                   "mlfma2d_bench_overhead"))
    ap.add_argument("--json", help="write the figures and every run here")
    ap.add_argument("--limit", type=float, default=0.05,
                    help="the overhead allowed (default 0.05 = 5 %%); exit 1 above it")
    args = ap.parse_args()

    rows = [measure(args, field) for field in (False, True)]
    print(f"mlfma2d {mlfma2d.__version__}: Python evaluate vs C++ evaluate, {args.shape} "
          f"N = {args.n}, eps = {args.eps:g}, back end {args.backend}, threads "
          f"{args.threads or 'default'}, {args.repeat} interleaved runs each, medians")
    print(f"{'field':>5} {'L':>3} {'p':>3} {'C++ ms':>9} {'Python ms':>10} {'overhead':>9} "
          f"{'binding us':>11} {'binding %':>10}")
    for r in rows:
        print(f"{str(r['field']):>5} {r['levels']:>3} {r['terms']:>3} "
              f"{r['cpp_median_s'] * 1e3:9.2f} {r['python_median_s'] * 1e3:10.2f} "
              f"{r['overhead'] * 100:8.2f}% {r['binding_median_s'] * 1e6:11.1f} "
              f"{r['binding_share'] * 100:9.3f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"version": mlfma2d.__version__, "shape": args.shape, "eps": args.eps,
                       "backend": args.backend, "threads": args.threads, "limit": args.limit,
                       "rows": rows}, f, indent=1)
    worst = max(r["overhead"] for r in rows)
    if worst > args.limit:
        print(f"overhead {worst * 100:.2f}% is above the limit {args.limit * 100:.1f}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
