"""The pip route as a new user takes it (CTest's python_pip_install, python/CMakeLists.txt):

1. a clean copy of the source tree (no build trees) and a fresh venv made with
   --system-site-packages (Debian's NumPy, SciPy and pytest; pip reaches no package index);
2. `pip install --no-build-isolation --no-index <copy>`;
3. from a directory outside both: the package imports from the venv's site-packages, its
   extension needs nothing outside the system (ldd), it evaluates within eps of direct_sum, its
   version is the CMake project's;
4. python/tests run against the installed package (conftest.py checks where mlfma2d came from).

    /usr/bin/python3 python/tests/pip_install.py WORK_DIR      (WORK_DIR is wiped first)

Prints each step's wall time; exits non-zero, saying what failed, at the first failure.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def step(name, args, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(args, **kw)
    print(f"pip_install: {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    if r.returncode != 0:
        sys.exit(f"pip_install: {name} failed (exit {r.returncode}): {' '.join(map(str, args))}")
    return r


def copy_source(dest):
    """The tree as a checkout has it: top-level build*/ and dot folders (.git, ...) left out."""
    def ignore(folder, names):
        top = pathlib.Path(folder) == REPO
        return [n for n in names if n == "__pycache__" or n.endswith(".egg-info")
                or (top and (n.startswith("build") or n.startswith(".")))]
    shutil.copytree(REPO, dest, ignore=ignore)


# Run in the venv, from a scratch directory: prints what the checks below read.
CHECK = textwrap.dedent("""
    import importlib.metadata, json, sys, sysconfig
    import numpy as np
    import mlfma2d
    p = mlfma2d.generate_points("clusters", 4000, seed=5)
    phi, ex, ey = mlfma2d.Solver(p.x, p.y, eps=1e-6, field=True).evaluate(p.q)
    rphi, rex, rey = mlfma2d.direct_sum(p.x, p.y, p.q, field=True)
    print(json.dumps({
        "file": mlfma2d.__file__,
        "platlib": sysconfig.get_paths()["platlib"],
        "version": mlfma2d.__version__,
        "dist_version": importlib.metadata.version("mlfma2d"),
        "phi_err": float(np.linalg.norm(phi - rphi) / np.linalg.norm(rphi)),
        "field_err": float(np.sqrt(np.sum((ex - rex) ** 2 + (ey - rey) ** 2)
                                   / np.sum(rex ** 2 + rey ** 2))),
    }))
""")


def check(ok, what):
    if not ok:
        sys.exit(f"pip_install: {what}")
    print(f"pip_install: ok: {what}", flush=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    work = pathlib.Path(sys.argv[1]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    run_dir = work / "run"  # outside the source and the venv: `import mlfma2d` cannot find a copy
    run_dir.mkdir(parents=True)
    source, venv = work / "src", work / "venv"
    copy_source(source)
    step("venv", [sys.executable, "-m", "venv", "--system-site-packages", str(venv)])
    python = venv / "bin" / "python"

    # Nothing from the caller points Python at another mlfma2d (CTest's PYTHONPATH, build tree).
    env = {k: v for k, v in os.environ.items() if k not in
           ("PYTHONPATH", "LD_LIBRARY_PATH", "MLFMA2D_BUILD_DIR", "MLFMA2D_PYTHON_INSTALL_DIR")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONDONTWRITEBYTECODE="1")
    # The cost model's calibration (seconds) is the machine's: CTest shares its test cache.
    env.setdefault("MLFMA2D_CACHE_DIR", str(work / "cache"))
    step("pip install", [python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                         str(source)], env=env, cwd=run_dir)

    r = step("import and evaluate", [python, "-c", CHECK], env=env, cwd=run_dir,
             capture_output=True, text=True)
    got = json.loads(r.stdout)
    package = pathlib.Path(got["file"]).parent
    check(package == pathlib.Path(got["platlib"]) / "mlfma2d",
          f"mlfma2d imported from the venv's site-packages ({package})")
    check(got["phi_err"] <= 1e-6 and got["field_err"] <= 1e-6,
          f"potential and field within eps 1e-6 of direct_sum ({got['phi_err']:.2e}, "
          f"{got['field_err']:.2e})")
    check(got["version"] == got["dist_version"],
          f"__version__ {got['version']} is the installed distribution's {got['dist_version']}")

    extensions = list(package.glob("_core.*.so"))
    check(len(extensions) == 1, f"one extension in the package: {[e.name for e in extensions]}")
    ldd = subprocess.run(["ldd", str(extensions[0])], env=env, capture_output=True, text=True,
                         check=True).stdout
    outside = [line.strip() for line in ldd.splitlines()
               if "not found" in line or ("mlfma2d" in line and str(package) not in line)]
    check(not outside, f"the extension needs no library outside the system and the package "
                       f"(ldd: {outside})")

    step("python/tests against the installed package",
         [python, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
          str(source / "python" / "tests")],
         env=dict(env, MLFMA2D_EXPECT_PACKAGE=str(package)), cwd=run_dir)


if __name__ == "__main__":
    main()
