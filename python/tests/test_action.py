"""The GitHub Action's steps, run here as a runner runs them: each step's
`run` under bash with its `env` (inputs filled in), the files behind
GITHUB_PATH and GITHUB_OUTPUT, and the wheel built for these tests as the
package to install."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

yaml = pytest.importorskip("yaml")


def run_action(root, tmp_path, inputs: dict) -> tuple:
    wheel = os.environ.get("CALLINT_WHEEL")
    if not wheel:
        pytest.fail("set CALLINT_WHEEL to the wheel the action installs (scripts/test-python.sh does)")
    action = yaml.safe_load((root / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    given = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    given.update(package=wheel, **inputs)
    path_file, output_file = tmp_path / "path", tmp_path / "output"
    path_file.write_text("")
    output_file.write_text("")
    env = dict(os.environ, GITHUB_PATH=str(path_file), GITHUB_OUTPUT=str(output_file))
    # Nothing from the test's own environment stands in for the install.
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(p, "callint")))

    def fill(value: str) -> str:
        value = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: given[m.group(1)], value)
        return re.sub(r"\$\{\{\s*runner\.temp\s*\}\}", str(tmp_path), value)

    results = []
    for step in action["runs"]["steps"]:
        assert step["shell"] == "bash"
        step_env = dict(env, **{k: fill(str(v)) for k, v in step.get("env", {}).items()})
        added = [l for l in path_file.read_text().splitlines() if l]
        step_env["PATH"] = os.pathsep.join([*reversed(added), env["PATH"]])
        assert "${{" not in step["run"], "inputs reach the scripts through env only"
        p = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            env=step_env, cwd=root, capture_output=True, text=True,
        )
        results.append(p)
        if p.returncode != 0:
            break
    outputs = dict(l.split("=", 1) for l in output_file.read_text().splitlines() if "=" in l)
    return results, outputs


def test_the_action_annotates_findings_and_writes_sarif(root, tmp_path) -> None:
    sarif = tmp_path / "callint.sarif"
    steps, outputs = run_action(root, tmp_path, {"paths": "corpus/board-mistakes", "sarif": str(sarif)})
    assert len(steps) == 2 and steps[0].returncode == 0, steps[0].stderr
    check = steps[1]
    assert check.returncode == 1, check.stderr
    assert "::warning file=corpus/board-mistakes/kiwi.jsonl,line=7," in check.stdout
    assert "::error file=corpus/board-mistakes/release-notes.jsonl,line=2," in check.stdout
    assert len(json.loads(sarif.read_text())["runs"][0]["results"]) == 8
    assert outputs == {"findings": "8"}


def test_a_clean_check_passes_and_args_go_through(root, tmp_path) -> None:
    steps, outputs = run_action(root, tmp_path, {"paths": "corpus/clean-en corpus/clean-de"})
    assert [s.returncode for s in steps] == [0, 0], steps[-1].stderr
    assert outputs == {"findings": "0"}
    steps, outputs = run_action(
        root, tmp_path, {"paths": "corpus/board-mistakes", "args": "--select label-too-long --exit-zero"}
    )
    assert [s.returncode for s in steps] == [0, 0], steps[-1].stderr
    assert outputs == {"findings": "1"}
