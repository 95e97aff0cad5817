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
# The wheel is built from the checkout first (maturin, as
# scripts/test-python.sh does) and installed, replacing any other, into the
# virtual environment scripts/test-python.sh makes (or into PYTHON, an
# interpreter with dask and distributed installed): the figures are those of
# this checkout's module.
# Usage: scripts/bench-python.sh [COPIES]
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-100}
target=${CARGO_TARGET_DIR:-target}
python=${PYTHON:-$target/py-test/bin/python}
scripts/bench-batch.sh --folder-only "$copies"
dir=$target/bench-batch/logs
bin=$target/release/callint

tools="$target/py-tools"
if [ ! -x "$tools/bin/maturin" ]; then
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install --quiet "maturin>=1.9,<2"
fi
rm -rf "$target/wheels"
"$tools/bin/maturin" build --release --locked --quiet -o "$target/wheels"
wheel=$(ls "$target"/wheels/callint-*.whl)
"$python" -m pip install --quiet --force-reinstall --no-deps "$wheel"

"$python" scripts/bench_python.py "$bin" "$dir" "$wheel"
