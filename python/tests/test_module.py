"""The Python module and the wheel's command find what the cargo-built
binary finds, and report problems as Python does."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig

import pytest

import callint
from conftest import run


def wheel_command() -> str:
    """The ``callint`` script the wheel installed beside this interpreter."""
    path = shutil.which("callint", path=sysconfig.get_path("scripts"))
    assert path is not None, "the wheel installed no callint command"
    return path


def binary_json(binary: str, *args: str) -> dict:
    p = run([binary, "check", *args, "--format", "json", "--no-cache"])
    assert p.returncode in (0, 1), p.stderr.decode()
    return json.loads(p.stdout)


def test_the_wheels_command_prints_what_the_binary_prints(binary: str) -> None:
    wheel = wheel_command()
    assert wheel != binary
    for fmt in ("json", "concise", "sarif"):
        ours = run([wheel, "check", "corpus", "--format", fmt, "--no-cache"])
        theirs = run([binary, "check", "corpus", "--format", fmt, "--no-cache"])
        assert ours.returncode == theirs.returncode == 1
        assert ours.stdout == theirs.stdout, fmt
    # python -m callint is the same command.
    p = run([sys.executable, "-m", "callint", "check", "corpus/board-mistakes", "--format", "concise", "--no-cache"])
    assert p.returncode == 1
    assert b"release-notes.jsonl:2:134: error[label-too-long]" in p.stdout
    # Help and usage errors return their status: the interpreter is not cut short.
    assert run([wheel, "--version"]).stdout.startswith(b"callint ")
    bad = run([wheel, "check", "--no-such-flag"])
    assert bad.returncode == 2 and b"--no-such-flag" in bad.stderr


def test_check_gives_the_json_findings_of_the_whole_corpus(binary: str) -> None:
    expected = binary_json(binary, "corpus")
    assert expected["summary"]["diagnostics"] > 300
    assert callint.check("corpus", summary=True) == expected
    assert callint.check(["corpus"]) == expected["diagnostics"]
    # Rule choices and input formats go through as on the command line.
    assert callint.check("corpus", select="board-bundle,label-too-long") == binary_json(
        binary, "corpus", "--select", "board-bundle,label-too-long"
    )["diagnostics"]
    assert callint.check("corpus/seed-incident", ignore=["wrong-language"], merge=False) == binary_json(
        binary, "corpus/seed-incident", "--ignore", "wrong-language", "--no-merge"
    )["diagnostics"]


def test_data_is_linted_like_the_file_it_names(root) -> None:
    name = "corpus/seed-incident/opencode.jsonl"
    content = (root / name).read_bytes()
    from_file = callint.check(name)
    assert len(from_file) > 5
    assert callint.check(data={name: content}) == from_file
    assert callint.check(data={name: content.decode("utf-8")}) == from_file
    # Unnamed data is filed under "-", as standard input is.
    unnamed = callint.check(data=content, input_format="native")
    assert [f["file"] for f in unnamed] == ["-"] * len(from_file)
    assert [(f["line"], f["rule"]) for f in unnamed] == [(f["line"], f["rule"]) for f in from_file]


def test_problems_are_python_exceptions_with_the_command_lines_message(tmp_path) -> None:
    with pytest.raises(callint.CallintError, match="unknown rule"):
        callint.check("corpus/clean-en", select=["no-such-rule"])
    with pytest.raises(callint.CallintError, match="unknown input format `yaml`"):
        callint.check("corpus/clean-en", input_format="yaml")
    with pytest.raises(callint.CallintError) as e:
        callint.check(["corpus/board-mistakes", "no/such/log.jsonl"])
    assert e.value.errors == ["cannot read no/such/log.jsonl: No such file or directory (os error 2)"]
    # The inputs that could be read were still checked.
    assert json.loads(e.value.document)["summary"]["diagnostics"] == 8
    (tmp_path / "notes.bin").write_bytes(b"\x00")
    with pytest.raises(callint.CallintError, match="nothing to check below"):
        callint.check(tmp_path)
    bad = tmp_path / "callint.toml"
    bad.write_text("select = 3\n")
    with pytest.raises(callint.CallintError, match="callint.toml"):
        callint.check("corpus/clean-en", config=bad)
    # config=False: no configuration at all.
    assert callint.check("corpus/clean-en", config=False) == []


def test_assert_clean_fails_with_the_concise_report() -> None:
    callint.assert_clean("corpus/clean-en")
    callint.assert_clean("corpus/board-mistakes", ignore="board-bundle,decision-not-yes-no,question-on-board,board-missing-emoji,label-too-long")
    with pytest.raises(AssertionError) as e:
        callint.assert_clean("corpus/board-mistakes")
    message = str(e.value)
    assert "corpus/board-mistakes/release-notes.jsonl:2:134: error[label-too-long]" in message
    assert message.rstrip().endswith("in 2 files, 47 records.")


def test_the_pytest_plugin_gives_the_fixture(pytester, root) -> None:
    log = root / "corpus" / "board-mistakes" / "kiwi.jsonl"
    clean = root / "corpus" / "clean-en"
    pytester.makepyfile(
        f"""
        def test_clean(assert_call_clean):
            assert_call_clean({str(clean)!r})

        def test_broken(assert_call_clean):
            assert_call_clean({str(log)!r})
        """
    )
    # The wheel registers the plugin: nothing to name.
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*kiwi.jsonl:7:139: warning[[]board-bundle[]]*"])


def test_rules_and_explain_are_the_catalogue(binary: str) -> None:
    expected = json.loads(run([binary, "rules", "--format", "json"]).stdout)
    assert callint.rules() == expected
    assert len(expected) >= 20
    page = callint.explain("board-bundle")
    assert page == run([binary, "explain", "board-bundle"]).stdout.decode()
    assert "## " in page
    with pytest.raises(callint.CallintError, match="unknown rule"):
        callint.explain("board-bundles")


def test_the_version_is_the_crates() -> None:
    out = subprocess.run([wheel_command(), "--version"], capture_output=True, text=True).stdout
    assert out.split() == ["callint", callint.__version__]


def _page_data(index: str) -> dict:
    # The numbers the audit's page holds, from its data block.
    text = open(index, encoding="utf-8").read()
    start = text.index('<script type="application/json" id="audit-data">')
    start = text.index(">", start) + 1
    return json.loads(text[start : text.index("</script>", start)])


def test_audit_is_the_commands_and_its_page_is_built_from_parts(binary: str, tmp_path) -> None:
    from callint import cluster

    expected = json.loads(run([binary, "audit", "corpus", "--format", "json", "--no-cache"]).stdout)
    whole = callint.audit("corpus")
    assert whole == expected
    statistics = json.loads(run([binary, "check", "corpus", "--format", "json", "--no-cache"]).stdout)
    assert whole["statistics"] == statistics["summary"]["statistics"]

    index = callint.audit_html("corpus", tmp_path / "whole")
    assert index == str(tmp_path / "whole" / "index.html")
    data = _page_data(index)
    assert sum(c[4] for c in data["cells"]) == whole["diagnostics"]
    # Every listed call links to a post-mortem written beside the page.
    pages = [t[2] for t in data["top"] if t[2]]
    assert len(pages) >= len(data["top"]) * 9 // 10
    for p in pages:
        assert (tmp_path / "whole" / p).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    # The parts of the corpus audited apart give the same page.
    parts = [callint.audit(files) for files in cluster.partitions("corpus")]
    assert len(parts) > 3
    rebuilt = _page_data(callint.audit_html(parts, tmp_path / "parts", title="corpus"))
    assert_same_page(rebuilt, data)


def _by_cell(data: dict) -> dict:
    # Findings by rule, agent and severity, whatever their day: a call
    # whose session files or transcripts lie in another partition than its
    # native logs has their findings counted on their own day there.
    out: dict = {}
    for _, r, a, s, n in data["cells"]:
        out[(r, a, s)] = out.get((r, a, s), 0) + n
    return out


def assert_same_page(rebuilt: dict, data: dict) -> None:
    for key in ("says", "dayCalls", "days", "rules", "agents", "calls", "files"):
        assert rebuilt[key] == data[key], key
    assert _by_cell(rebuilt) == _by_cell(data)
    assert [(t[0], t[1], t[4]) for t in rebuilt["top"]] == [(t[0], t[1], t[4]) for t in data["top"]]


def test_audit_html_refuses_a_document_that_is_no_audit(tmp_path) -> None:
    with pytest.raises(callint.CallintError):
        callint.audit_html({"version": 1, "diagnostics": 3}, tmp_path)
