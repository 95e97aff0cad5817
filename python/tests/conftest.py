"""Shared helpers: the repository's root, and the binary cargo built, which
the wheel must agree with."""

from __future__ import annotations

import os
import pathlib
import subprocess
from typing import List

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def binary() -> str:
    """The cargo-built ``callint`` (``CALLINT_BIN``, else target/release)."""
    path = os.environ.get("CALLINT_BIN") or str(
        pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "callint"
    )
    if not os.path.exists(path):
        pytest.fail(f"no callint binary at {path}: build it with cargo build --release, or set CALLINT_BIN")
    return path


@pytest.fixture(autouse=True)
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths in findings are relative to the repository's root."""
    monkeypatch.chdir(ROOT)


def run(cmd: List[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, cwd=ROOT, **kw)
