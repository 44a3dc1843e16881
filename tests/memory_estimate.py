"""The memory estimate of mlfma2d against its measured peak (CTest: memory_estimate_follows_peak).

    memory_estimate.py MLFMA2D SCRATCH_DIR

Uniform points at three sizes, --backend cpu, eps 1e-3 (p = 9: fast), two threads. The peak is
measured from outside: the kernel's maximum resident set of the child (wait4's ru_maxrss). The
report's memory_estimate must lie in [1.0, 1.3] x that peak: at least the peak, so a run the
check lets through does not die of want of memory, and at most 30% above it, so what fits is not
refused (the old estimate, 180 bytes per point, was far above the peak at N = 1e8). The report's
own memory_peak (VmHWM) must agree with wait4's.
"""

import json
import os
import subprocess
import sys

SIZES = (100_000, 1_000_000, 3_000_000)  # the largest takes most of the test's time
BAND = (1.0, 1.3)


def run(args, out_path):
    """Runs args with stdout to out_path; returns (exit status, peak resident bytes)."""
    with open(out_path, "w") as out:
        child = subprocess.Popen(args, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(child.pid, 0)
        err = child.stderr.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(args)} exited {code}: {err}")
    return usage.ru_maxrss * 1024  # KiB on Linux


def main():
    app, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    failures = []
    for n in SIZES:
        points = os.path.join(scratch, f"uniform_{n}.h5")
        subprocess.run([app, "generate", "--shape", "uniform", "--n", str(n), "--seed", "1",
                        "--output", points, "--quiet"], check=True)
        report_path = os.path.join(scratch, f"report_{n}.json")
        peak = run([app, "--input", points, "--backend", "cpu", "--eps", "1e-3", "--threads", "2",
                    "--quiet", "--report", "json"], report_path)
        with open(report_path) as f:
            report = json.load(f)
        estimate, own_peak = report["memory_estimate"], report["memory_peak"]
        ratio = estimate / peak
        print(f"N = {n:>9}: measured peak {peak / 2**20:8.1f} MiB (report {own_peak / 2**20:8.1f}),"
              f" estimate {estimate / 2**20:8.1f} MiB, ratio {ratio:.3f}, CT {report['ct']},"
              f" {report['boxes']} boxes")
        if not BAND[0] <= ratio <= BAND[1]:
            failures.append(f"N = {n}: estimate / peak = {ratio:.3f}, outside {BAND}")
        if abs(own_peak - peak) > 0.05 * peak:
            failures.append(f"N = {n}: the report's peak {own_peak} is not wait4's {peak}")
        os.remove(points)
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    main()
