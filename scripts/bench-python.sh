#!/usr/bin/env bash
# What the Python package costs, measured in one run against the binary on
# the folder of scripts/bench-batch.sh (COPIES x the corpus):
#   - the wheel's size, and `import callint` (best of 10 interpreter starts,
#     less a bare start);
#   - `callint.check(DIR)` (findings as Python dicts) against the binary's
#     `check DIR --format json`, whole process, with one job and with all
#     cores, best of 3: the bindings' cost is the ratio;
#   - a Dask audit (`callint.cluster.audit`) on a LocalCluster of 1 and of 2
#     worker processes (cluster started beforehand, not timed) against the
#     binary with --jobs 1 and --jobs 2.
# Needs the virtual environment scripts/test-python.sh makes (or PYTHON set
# to an interpreter with the wheel, dask and distributed installed).
# Usage: scripts/bench-python.sh [COPIES]
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-100}
target=${CARGO_TARGET_DIR:-target}
python=${PYTHON:-$target/py-test/bin/python}
scripts/bench-batch.sh --folder-only "$copies"
dir=$target/bench-batch/logs
bin=$target/release/callint

"$python" - "$bin" "$dir" "$(ls "$target"/wheels/callint-*.whl 2>/dev/null | head -1)" <<'PY'
import json, os, subprocess, sys, time

bin_, d, wheel = sys.argv[1], sys.argv[2], sys.argv[3]
py = sys.executable
files = sum(len(f) for _, _, f in os.walk(d))

def best(n, f):
    t = []
    for _ in range(n):
        s = time.perf_counter(); f(); t.append(time.perf_counter() - s)
    return min(t)

def proc(*cmd):
    return lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)

if wheel:
    print(f"wheel: {os.path.basename(wheel)}, {os.path.getsize(wheel) / 1e6:.1f} MB")
bare = best(10, proc(py, "-c", "pass"))
imp = best(10, proc(py, "-c", "import callint"))
print(f"import callint: {1000 * (imp - bare):.1f} ms (interpreter start {1000 * bare:.1f} ms)")

# Same findings first.
cli = json.loads(subprocess.run([bin_, "check", d, "--format", "json", "--no-cache", "--exit-zero"], capture_output=True).stdout)
import callint
assert callint.check(d, summary=True) == cli, "the module and the binary disagree"
print(f"{files} files, {cli['summary']['diagnostics']} findings")

for jobs in (1, None):
    j = ["--jobs", "1"] if jobs else []
    c = best(3, proc(bin_, "check", d, "--format", "json", "--no-cache", "--exit-zero", *j))
    arg = "jobs=1" if jobs else ""
    p = best(3, proc(py, "-c", f"import callint; callint.check({d!r}, {arg})"))
    label = "--jobs 1" if jobs else "all cores"
    print(f"{label:9}  binary {c:6.3f} s   callint.check {p:6.3f} s   ratio {p / c:.3f}")

try:
    from dask.distributed import Client, LocalCluster
    from callint import cluster
except ImportError:
    sys.exit(0)
for workers in (1, 2):
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as lc, Client(lc):
        report = cluster.audit(d)
        assert sorted(map(json.dumps, report["diagnostics"])) == sorted(map(json.dumps, cli["diagnostics"]))
        t = best(3, lambda: cluster.audit(d))
    c = best(3, proc(bin_, "check", d, "--format", "json", "--no-cache", "--exit-zero", "--jobs", str(workers)))
    print(f"dask {workers} worker{'s' if workers > 1 else ' '} {t:6.3f} s   binary --jobs {workers} {c:6.3f} s   ratio {t / c:.2f}")
PY
