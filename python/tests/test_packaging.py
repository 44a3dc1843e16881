"""The package as people get it: `cmake --install` puts it where the interpreter looks, the
README's example runs as written, the overhead benchmark runs. The first and last need the build
tree, which CTest names in the environment (python/CMakeLists.txt); run by hand without it, they
skip and say so."""
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import sysconfig

import pytest

from conftest import REPO

BUILD = os.environ.get("MLFMA2D_BUILD_DIR")
needs_build = pytest.mark.skipif(not BUILD,
                                 reason="needs MLFMA2D_BUILD_DIR (set when CTest runs it)")


def run_python(args, pythonpath, **kw):
    """sys.executable with `args`; pythonpath's entries made absolute (the cwd may differ)."""
    entries = [os.path.abspath(p) for p in str(pythonpath).split(os.pathsep) if p]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(entries))
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, **kw)


def test_install_dir_is_site_packages_under_the_schemes_prefix():
    # With the interpreter's own prefix for its scheme (/usr/local for Debian's python3, the
    # default CMAKE_INSTALL_PREFIX), the install directory is the platlib on sys.path.
    relative = os.environ.get("MLFMA2D_PYTHON_INSTALL_DIR")
    if relative is None:
        pytest.skip("needs MLFMA2D_PYTHON_INSTALL_DIR (set when CTest runs it)")
    paths = sysconfig.get_paths()
    assert os.path.join(paths["data"], relative) == paths["platlib"]
    assert paths["platlib"] in sys.path


@needs_build
def test_cmake_install_puts_an_importable_package_in_site_packages(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run([os.environ.get("CMAKE_COMMAND", "cmake"), "--install", BUILD, "--prefix",
                    str(prefix), "--component", "python"], check=True, capture_output=True)
    site = prefix / os.environ["MLFMA2D_PYTHON_INSTALL_DIR"]
    assert sorted(p.name for p in (site / "mlfma2d").glob("*.py")) == \
        sorted(p.name for p in (REPO / "python" / "mlfma2d").glob("*.py"))
    r = run_python(["-c", "import mlfma2d; print(mlfma2d.__file__); "
                          "print(*mlfma2d.Solver([0.0, 3.0], [0.0, 4.0]).evaluate([1.0, 1.0]))"],
                   site, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == str(site / "mlfma2d" / "__init__.py")
    assert [float(v) for v in lines[1].split()] == pytest.approx([math.log(5)] * 2, rel=1e-12)


def readme_python_example():
    text = (REPO / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_python_example_runs_as_written(tmp_path):
    code = readme_python_example()
    assert 5 <= len(code.strip().splitlines()) <= 14
    script = tmp_path / "example.py"
    script.write_text(code)
    r = run_python([str(script)], os.environ.get("PYTHONPATH", ""), cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    # Its first line of output is the relative error it states in a comment.
    claimed = float(re.search(r"# relative error <= (\S+)", code).group(1))
    assert float(r.stdout.split()[0]) <= claimed


@needs_build
def test_the_overhead_benchmark_runs_and_writes_its_table(tmp_path):
    program = pathlib.Path(BUILD) / "python" / "mlfma2d_bench_overhead"
    if not program.exists():
        pytest.skip(f"{program} not built (MLFMA2D_BUILD_BENCH=OFF)")
    out = tmp_path / "overhead.json"
    # Small N, so that only that it runs is checked here; the 5 % figure is docs/python.md's.
    r = run_python([str(REPO / "python" / "bench" / "bench_overhead.py"), "--n", "2000",
                    "--repeat", "2", "--cpp", str(program), "--json", str(out),
                    "--limit", "1e9"], os.environ.get("PYTHONPATH", ""), timeout=300)
    assert r.returncode == 0, r.stderr

    rows = json.loads(out.read_text())["rows"]
    assert [row["field"] for row in rows] == [False, True]
    assert all(len(row["cpp_wall_s"]) == 2 and len(row["python_wall_s"]) == 2 for row in rows)
