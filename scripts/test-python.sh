#!/usr/bin/env bash
# The Python package's tests: build the wheel with maturin, install it into
# a fresh virtual environment with what the tests need (pytest; pytest-lsp,
# the language client that drives `callint server`; Dask, pandas
# and pyarrow for the cluster recipe; PyYAML to read action.yml; pre-commit),
# and run python/tests against the cargo-built binary, which the wheel's
# command and module must agree with; the MCP SDK (1.x and 2.x, pinned) in
# virtual environments of their own, for the proxy's tests. Then the
# pre-commit hook is tried with the wheel instead of a build of the crate.
#
# Needs python3 (3.10 or newer, with venv: pytest-lsp needs it), pip's access
# to PyPI, and npm with access to its registry.
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

# The official MCP Python SDK, a 1.x and a 2.x release, each in a virtual
# environment of its own (they cannot share one), as the proxy's
# counterparts in python/tests/test_proxy_sdk.py.
for v in 1:1.30.0 2:2.3.0; do
  sdk="$target/py-mcp${v%%:*}"
  if [ ! -x "$sdk/bin/python" ] || ! "$sdk/bin/python" -m pip show mcp 2>/dev/null | grep -qx "Version: ${v#*:}"; then
    rm -rf "$sdk"
    "$python" -m venv "$sdk"
    "$sdk/bin/python" -m pip install --quiet "mcp==${v#*:}"
  fi
done

# The VS Code extension's packages and its packager (@vscode/vsce), from
# the npm registry, in a copy of its folder.
vscode="$target/vscode-extension"
rm -rf "$vscode"
mkdir -p "$vscode"
cp integrations/vscode/{package.json,package-lock.json,extension.js,README.md,.vscodeignore} "$vscode"/
(cd "$vscode" && npm ci --no-audit --no-fund --loglevel=error)

CALLINT_BIN="$target/release/callint" CALLINT_WHEEL="$wheel" CALLINT_VSCODE="$vscode" \
  MCP_SDK1_PYTHON="$target/py-mcp1/bin/python" MCP_SDK2_PYTHON="$target/py-mcp2/bin/python" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests

# The pre-commit hook from the wheel: no Rust toolchain involved.
PYTHON="$venv/bin/python" .ci/precommit.sh --wheel "$wheel"
