#!/usr/bin/env python3
"""Checks the FMM2D benchmark drivers (.fmm2d/, built by build.sh) against a direct sum in NumPy.

    python3 bench/peers/fmm2d/check.py [--n 20000] [--nd 3] [--eps 1e-10] [--builds v3 v4]
                                       [--threads 2] [--tol EPS] [--h5 FILE]

Generates a uniform point set with mlfma2d (build/mlfma2d generate --shape uniform --densities
ND; or takes --h5), converts it with to_bin.py --nd ND --dipoles, runs every build's run.sh at
pgh 1, 2, 3 with charges, dipoles and both, and prints the relative l2 error (all densities and
points together) of pot, grad and hess against a direct sum written here from FMM2D's convention
(docs/math.md 1.3):

    pot(x) = sum_j c_j log|x - y_j| - sum_j d_j v_j . (x - y_j) / |x - y_j|^2,  self pair skipped,
    grad = (pot_x, pot_y), hess = (pot_xx, pot_xy, pot_yy).

The direct sum's derivatives are first checked against central differences of its own
potential. Also checks that to_bin.py wrote the file's charges, and that its two HDF5 readers
(h5py, ctypes) agree where both are available. Exits 1 when an error exceeds --tol (default:
eps) or a run fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import to_bin  # noqa: E402


def read_in(path):
    with open(path, "rb") as f:
        assert f.read(8) == b"FMM2DIN1"
        n, nd, dip = np.frombuffer(f.read(24), dtype="<i8")
        src = np.frombuffer(f.read(16 * n), dtype="<f8").reshape(n, 2)
        c = np.frombuffer(f.read(8 * n * nd), dtype="<f8").reshape(n, nd)
        d = v = None
        if dip:
            d = np.frombuffer(f.read(8 * n * nd), dtype="<f8").reshape(n, nd)
            v = np.frombuffer(f.read(16 * n * nd), dtype="<f8").reshape(n, 2, nd)
        assert f.read(1) == b""
    return src, c, d, v


def read_out(path):
    with open(path, "rb") as f:
        assert f.read(8) == b"FMM2DOU1"
        n, nd, pgh = (int(t) for t in np.frombuffer(f.read(24), dtype="<i8"))
        out = {"pot": np.frombuffer(f.read(8 * n * nd), dtype="<f8").reshape(n, nd)}
        if pgh >= 2:
            out["grad"] = np.frombuffer(f.read(16 * n * nd), dtype="<f8").reshape(n, 2, nd)
        if pgh == 3:
            out["hess"] = np.frombuffer(f.read(24 * n * nd), dtype="<f8").reshape(n, 3, nd)
        assert f.read(1) == b""
    return out


def direct(targets, src, c, wx, wy, self_eval, block=128):
    """pot (M, nd), grad (M, 2, nd), hess (M, 3, nd) of charges c (N, nd) and dipoles with
    weights wx = d v_x, wy = d v_y (N, nd) (either may be None), at targets (M, 2); with
    self_eval, target i is source i and that pair is skipped."""
    m, nd = targets.shape[0], (c if c is not None else wx).shape[1]
    pot, grad, hess = np.zeros((m, nd)), np.zeros((m, 2, nd)), np.zeros((m, 3, nd))
    for a in range(0, m, block):
        b = min(m, a + block)
        rx = targets[a:b, 0:1] - src[None, :, 0]
        ry = targets[a:b, 1:2] - src[None, :, 1]
        r2 = rx * rx + ry * ry
        if self_eval:
            idx = np.arange(a, b)
            r2[idx - a, idx] = np.inf
            rx[idx - a, idx] = 0.0
            ry[idx - a, idx] = 0.0
        i2 = 1.0 / r2
        i4 = i2 * i2
        kxx, kxy, kyy = rx * rx * i4, rx * ry * i4, ry * ry * i4
        if c is not None:
            lg = np.log(np.where(np.isinf(r2), 1.0, r2))
            pot[a:b] += 0.5 * (lg @ c)
            grad[a:b, 0] += (rx * i2) @ c
            grad[a:b, 1] += (ry * i2) @ c
            hess[a:b, 0] += (kyy - kxx) @ c
            hess[a:b, 1] += -2.0 * (kxy @ c)
            hess[a:b, 2] += (kxx - kyy) @ c
        if wx is not None:
            # -d v.r / r2 and its derivatives
            pot[a:b] -= (rx * i2) @ wx + (ry * i2) @ wy
            grad[a:b, 0] -= i2 @ wx - 2.0 * (kxx @ wx + kxy @ wy)
            grad[a:b, 1] -= i2 @ wy - 2.0 * (kxy @ wx + kyy @ wy)
            lx, ly = rx * i4, ry * i4
            i6 = i4 * i2
            mxxx, mxxy = rx * rx * rx * i6, rx * rx * ry * i6
            mxyy, myyy = rx * ry * ry * i6, ry * ry * ry * i6
            lxw, lyw = lx @ wx, ly @ wy
            hess[a:b, 0] -= -4.0 * lxw - 2.0 * (lxw + lyw) + 8.0 * (mxxx @ wx + mxxy @ wy)
            hess[a:b, 1] -= -2.0 * (ly @ wx + lx @ wy) + 8.0 * (mxxy @ wx + mxyy @ wy)
            hess[a:b, 2] -= -4.0 * lyw - 2.0 * (lxw + lyw) + 8.0 * (mxyy @ wx + myyy @ wy)
    return pot, grad, hess


def self_test():
    """The direct sum's gradient and Hessian against central differences of its potential."""
    rng = np.random.default_rng(7)
    src = rng.random((40, 2))
    c, d = rng.random((40, 2)) - 0.5, rng.random((40, 2))
    ang = 2 * np.pi * rng.random((40, 2))
    wx, wy = d * np.cos(ang), d * np.sin(ang)
    t = 0.5 + 0.3 * (rng.random((6, 2)) - 0.5) + np.array([1.5, 0.0])  # away from the sources
    worst = 0.0
    for cc, ww in ((c, None), (None, (wx, wy)), (c, (wx, wy))):
        args = (src, cc, ww[0] if ww else None, ww[1] if ww else None, False)
        pot, grad, hess = direct(t, *args)
        h = 1e-4
        fd_g, fd_h = np.zeros_like(grad), np.zeros_like(hess)
        for k in range(2):
            e = np.zeros(2)
            e[k] = h
            pp, gp, _ = direct(t + e, *args)
            pm, gm, _ = direct(t - e, *args)
            fd_g[:, k] = (pp - pm) / (2 * h)
            if k == 0:
                fd_h[:, 0] = (gp[:, 0] - gm[:, 0]) / (2 * h)
                fd_h[:, 1] = (gp[:, 1] - gm[:, 1]) / (2 * h)
            else:
                fd_h[:, 2] = (gp[:, 1] - gm[:, 1]) / (2 * h)
                fd_h[:, 1] = 0.5 * (fd_h[:, 1] + (gp[:, 0] - gm[:, 0]) / (2 * h))
        worst = max(worst, rel(grad, fd_g), rel(hess, fd_h))
    return worst


def rel(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--nd", type=int, default=3)
    ap.add_argument("--eps", default="1e-10")
    ap.add_argument("--builds", nargs="+", default=["v3", "v4"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tol", type=float, help="largest error allowed (default: eps)")
    ap.add_argument("--h5", help="point file to use instead of generating one")
    ap.add_argument("--fmm2d-dir", default=os.path.join(ROOT, ".fmm2d"))
    ap.add_argument("--mlfma2d", default=os.path.join(ROOT, "build", "mlfma2d"))
    a = ap.parse_args()
    if a.tol is None:
        a.tol = float(a.eps)

    st = self_test()
    print("direct sum: grad and hess against central differences of its pot: %.1e" % st)
    failed = st > 1e-6
    work = tempfile.mkdtemp(prefix="fmm2d_check_")
    h5 = a.h5 or os.path.join(work, "u.h5")
    if not a.h5:
        subprocess.run([a.mlfma2d, "generate", "--shape", "uniform", "--n", str(a.n), "--densities",
                        str(a.nd), "--seed", str(a.seed), "--output", h5, "--quiet"], check=True)
    inp = os.path.join(work, "in.bin")
    subprocess.run([sys.executable, os.path.join(a.fmm2d_dir, "to_bin.py"), h5, inp, "--nd",
                    str(a.nd), "--dipoles", "--seed", str(a.seed)], check=True)
    src, c, d, v = read_in(inp)
    n = src.shape[0]

    names = ["/sources/x", "/sources/y", "/sources/q"]
    readers = {}
    try:
        readers["h5py"] = to_bin.read_h5py(h5, names)
    except ImportError:
        pass
    try:
        readers["ctypes"] = to_bin.read_ctypes(h5, names)
    except SystemExit as e:
        print("ctypes reader unavailable: %s" % e)
    if len(readers) == 2:
        same = all(np.array_equal(readers["h5py"][k], readers["ctypes"][k]) for k in names)
        print("to_bin.py readers h5py and ctypes agree: %s" % same)
        failed |= not same
    f = next(iter(readers.values()))
    q = f["/sources/q"].reshape(-1, n)
    ok = (np.array_equal(src[:, 0], f["/sources/x"]) and np.array_equal(src[:, 1], f["/sources/y"])
          and (q.shape[0] < a.nd or np.array_equal(c, q[:a.nd].T)))
    print("to_bin.py: points%s as in %s: %s" % (" and charges" if q.shape[0] >= a.nd else "", h5, ok))
    failed |= not ok
    unit = np.abs(np.hypot(v[:, 0], v[:, 1]) - 1).max()
    print("dipole vectors' |v| - 1: at most %.1e" % unit)

    wx, wy = d * v[:, 0], d * v[:, 1]
    ref = {}
    for kind, (cc, xx, yy) in {"charges": (c, None, None), "dipoles": (None, wx, wy),
                               "both": (c, wx, wy)}.items():
        ref[kind] = dict(zip(("pot", "grad", "hess"), direct(src, src, cc, xx, yy, True)))
    flags = {"charges": ("1", "0"), "dipoles": ("0", "1"), "both": ("1", "1")}

    out = os.path.join(work, "out.bin")
    print("\nN %d, nd %d, eps %s, %d threads; relative l2 errors against the direct sum"
          % (n, a.nd, a.eps, a.threads))
    print("| build | sources | pgh | pot | grad | hess | median s | ier |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    results = []
    for b in a.builds:
        for kind in ("charges", "dipoles", "both"):
            for pgh in (1, 2, 3):
                cmd = [os.path.join(a.fmm2d_dir, "run.sh"), inp, out, "--nd", str(a.nd),
                       "--eps", a.eps, "--charges", flags[kind][0], "--dipoles", flags[kind][1],
                       "--pgh", str(pgh), "--repeat", "1", "--threads", str(a.threads)]
                p = subprocess.run(cmd, env=dict(os.environ, FMM2D_BENCH=b), capture_output=True,
                                   text=True)
                if p.returncode != 0:
                    print("| %s | %s | %d | failed (rc %d): %s |" % (b, kind, pgh, p.returncode,
                                                                    p.stderr.strip()[-200:]))
                    failed = True
                    continue
                j = json.loads(p.stdout.strip().splitlines()[-1])
                o = read_out(out)
                errs = {k: rel(o[k], ref[kind][k]) for k in o}
                row = [b, kind, str(pgh)] + ["%.1e" % errs[k] if k in errs else "-"
                                             for k in ("pot", "grad", "hess")]
                print("| %s | %.4f | %d |" % (" | ".join(row), j["median"], j["ier"]))
                results.append(dict(build=b, sources=kind, pgh=pgh, errors=errs, run=j))
                bad = max(errs.values()) > a.tol or j["ier"] != 0
                bad |= j["n"] != n or j["nd"] != a.nd or j["pgh"] != pgh or j["build"] != b
                failed |= bad
    worst = max((max(r["errors"].values()) for r in results), default=float("nan"))
    print("\nlargest error %.1e (tolerance %.0e): %s" % (worst, a.tol, "FAIL" if failed else "ok"))
    for p in (h5 if not a.h5 else None, inp, out):
        if p and os.path.exists(p):
            os.remove(p)
    os.rmdir(work)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
