"""Times the compile of chosen units with their flags changed (how results/dev-machine/ci/README.md
and tests/CMakeLists.txt got their per-unit compile times; this session ran the same loop inline).

    /usr/bin/python3 compile_times.py BUILD/compile_commands.json VARIANT UNIT...

VARIANT: asis (the build's own command), O1, O0 (that level in place of -O3/-O2/-O1), asan
(-fsanitize=address in place of address,undefined). UNIT: a suffix of a source path
(test_fields.cpp, farfield/expansions.cpp). One compile each, the object thrown away; other work
on the machine changes the figures.
"""
import json
import shlex
import subprocess
import sys
import time


def variant(args, kind):
    if kind == "asis":
        return args
    if kind in ("O1", "O0"):
        return [a for a in args if a not in ("-O3", "-O2", "-O1")] + ["-" + kind]
    if kind == "asan":
        return [a.replace("address,undefined", "address") for a in args]
    sys.exit(f"compile_times.py: unknown variant {kind}")


def main():
    commands, kind, units = sys.argv[1], sys.argv[2], sys.argv[3:]
    for entry in json.load(open(commands)):
        if not any(entry["file"].endswith(u) for u in units):
            continue
        args = shlex.split(entry["command"])
        args[args.index("-o") + 1] = "/dev/null"
        t0 = time.time()
        r = subprocess.run(variant(args, kind), cwd=entry["directory"], capture_output=True)
        print(f"{time.time() - t0:6.1f} s  {kind:5s} rc {r.returncode}  {entry['file']}")


if __name__ == "__main__":
    main()
