"""The VS Code extension (integrations/vscode), packaged with @vscode/vsce
as its `npm run package` does. scripts/test-python.sh installs its
dependencies and the packager from the npm registry into a copy of the
folder (CALLINT_VSCODE); this test runs offline on that copy."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import zipfile

import pytest

from conftest import ROOT


@pytest.fixture
def built() -> pathlib.Path:
    folder = os.environ.get("CALLINT_VSCODE")
    if not folder:
        pytest.skip("set CALLINT_VSCODE to the extension's folder with its npm packages (scripts/test-python.sh does)")
    return pathlib.Path(folder)


def test_the_extension_packages_and_starts_callint_server(built: pathlib.Path, tmp_path) -> None:
    # The copy is the repository's extension, file for file.
    for name in ("package.json", "extension.js"):
        assert (built / name).read_bytes() == (ROOT / "integrations/vscode" / name).read_bytes(), name
    out = tmp_path / "callint.vsix"
    p = subprocess.run(
        ["npm", "run", "--silent", "package", "--", "--out", str(out)],
        cwd=built,
        capture_output=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout.decode() + p.stderr.decode()
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        main = z.read("extension/extension.js").decode()
    assert "extension/node_modules/vscode-languageclient/package.json" in names
    # No development packages in the extension.
    assert not any(n.startswith("extension/node_modules/@vscode/vsce/") for n in names)
    assert manifest["main"] == "./extension.js"
    assert "onLanguage:markdown" in manifest["activationEvents"]
    assert set(manifest["contributes"]["configuration"]["properties"]) == {
        "callint.path",
        "callint.baseline",
        "callint.config",
        "callint.debounceMs",
    }
    assert 'args: ["server"]' in main
    # Every option the extension hands over is one the server reads.
    server = (ROOT / "src/app/server/mod.rs").read_text()
    for option in ("baseline", "config", "debounceMs"):
        assert f'opt("{option}")' in server, option
