#!/usr/bin/env bash
# The Python package's tests: build the wheel with maturin, install it into
# a fresh virtual environment with what the tests need (pytest; pytest-lsp,
# the language client that drives `callint server`; Dask, pandas
# and pyarrow for the cluster recipe; PyYAML to read action.yml; pre-commit),
# and run python/tests against the cargo-built binary, which the wheel's
# command and module must agree with. Then the pre-commit hook is tried
# with the wheel instead of a build of the crate.
#
# Needs python3 (3.9 or newer, with venv) and pip's access to PyPI, and
# npm with access to its registry.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
python=${PYTHON:-python3}

cargo build --release --locked --quiet --bin callint

tools="$target/py-tools"
if [ ! -x "$tools/bin/maturin" ]; then
  "$python" -m venv "$tools"
  "$tools/bin/python" -m pip install --quiet "maturin>=1.9,<2"
fi
rm -rf "$target/wheels"
"$tools/bin/maturin" build --release --locked -o "$target/wheels"
wheel=$(ls "$target"/wheels/callint-*.whl)

venv="$target/py-test"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet "$wheel" pytest "dask[bag]" distributed pandas pyarrow pyyaml pre-commit pytest-lsp

# The VS Code extension's packages and its packager (@vscode/vsce), from
# the npm registry, in a copy of its folder.
vscode="$target/vscode-extension"
rm -rf "$vscode"
mkdir -p "$vscode"
cp integrations/vscode/{package.json,package-lock.json,extension.js,README.md,.vscodeignore} "$vscode"/
(cd "$vscode" && npm ci --no-audit --no-fund --loglevel=error)

CALLINT_BIN="$target/release/callint" CALLINT_WHEEL="$wheel" CALLINT_VSCODE="$vscode" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests

# The pre-commit hook from the wheel: no Rust toolchain involved.
PYTHON="$venv/bin/python" .ci/precommit.sh --wheel "$wheel"
