"""The measurements of scripts/bench-python.sh (run it, not this file):
BINARY FOLDER [WHEEL]. A file of its own, so that Dask's worker processes
can start from it."""

import json
import os
import subprocess
import sys
import time


def best(n, f):
    t = []
    for _ in range(n):
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
    return min(t)


def proc(*cmd):
    return lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)


def main():
    binary, d = sys.argv[1], sys.argv[2]
    wheel = sys.argv[3] if len(sys.argv) > 3 else ""
    py = sys.executable
    files = sum(len(f) for _, _, f in os.walk(d))
    if wheel:
        print(f"wheel: {os.path.basename(wheel)}, {os.path.getsize(wheel) / 1e6:.1f} MB")
    bare = best(10, proc(py, "-c", "pass"))
    imp = best(10, proc(py, "-c", "import callint"))
    print(f"import callint: {1000 * (imp - bare):.1f} ms (interpreter start {1000 * bare:.1f} ms)")

    lint = [binary, "check", d, "--format", "json", "--no-cache", "--exit-zero"]
    out = subprocess.run(lint, capture_output=True).stdout
    cli = json.loads(out)
    import callint

    assert callint.check(d, summary=True) == cli, "the module and the binary disagree"
    print(f"{files} files, {cli['summary']['diagnostics']} findings")
    print(f"of which json.loads of the document: {best(3, lambda: json.loads(out)):.3f} s")
    for jobs in (1, None):
        extra = ["--jobs", "1"] if jobs else []
        c = best(3, proc(*lint, *extra))
        arg = "jobs=1" if jobs else ""
        p = best(3, proc(py, "-c", f"import callint; callint.check({d!r}, {arg})"))
        label = "--jobs 1" if jobs else "all cores"
        print(f"{label:9}  binary {c:6.3f} s   callint.check {p:6.3f} s   ratio {p / c:.3f}")

    try:
        from dask.distributed import Client, LocalCluster

        from callint import cluster
    except ImportError:
        return
    for workers in (1, 2):
        with LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as lc, Client(lc):
            report = cluster.audit(d)
            assert sorted(map(json.dumps, report["diagnostics"])) == sorted(map(json.dumps, cli["diagnostics"]))
            t = best(3, lambda: cluster.audit(d))
        c = best(3, proc(*lint, "--jobs", str(workers)))
        print(f"dask, {workers} worker{'s' if workers > 1 else ' '}  {t:6.3f} s   binary --jobs {workers} {c:6.3f} s   ratio {t / c:.2f}")


if __name__ == "__main__":
    main()
