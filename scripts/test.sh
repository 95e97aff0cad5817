#!/usr/bin/env bash
# Every test of the project: the crate's (cargo test), then the Python
# package's (scripts/test-python.sh: the wheel, its module and command, the
# Dask recipe, the GitHub Action's steps, the pre-commit hook from the wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
scripts/test-python.sh
