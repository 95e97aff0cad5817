"""`callint server` driven by pytest-lsp's language client (pygls), with the
capabilities real editors announce: VS Code's (diagnostics pushed) and
Neovim's (diagnostics pulled).

Every test works on copies of corpus files in a folder of its own, which is
the workspace's root."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
from typing import Callable, List, Optional

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402

from conftest import ROOT  # noqa: E402


def server_command() -> List[str]:
    path = os.environ.get("CALLINT_BIN") or str(
        pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "callint"
    )
    return [path, "server"]


BINARY = server_command()[0]


def make_client() -> LanguageClient:
    """pytest-lsp's client, keeping every publication with its version
    besides the latest diagnostics of each URI."""
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]

    def published(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)  # type: ignore[attr-defined]

    client.registered = []  # type: ignore[attr-defined]

    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        # VS Code lets a server register what it watches.
        client.registered.extend(params.registrations)  # type: ignore[attr-defined]

    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = published
    features[types.CLIENT_REGISTER_CAPABILITY] = register
    register_lsp_features(client, features)
    return client


# Where the server writes the rules' pages its codes link to.
CACHE = tempfile.mkdtemp(prefix="callint-server-cache-")
atexit.register(shutil.rmtree, CACHE, True)


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=server_command(),
        client_factory=make_client,
        server_env=dict(os.environ, XDG_CACHE_HOME=CACHE),
    )
)
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, root: pathlib.Path, editor: str = "visual_studio_code", **options) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(editor),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
            initialization_options=options or None,
        )
    )


def open_file(client: LanguageClient, path: pathlib.Path, text: Optional[str] = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="markdown" if path.suffix == ".md" else "plaintext",
                version=1,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )
    return uri


async def until(what: Callable[[], object], timeout: float = 20.0):
    """Wait until `what()` is true, and return it."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        got = what()
        if got:
            return got
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


def published_for(client: LanguageClient, uri: str, version: Optional[int] = None) -> Optional[list]:
    for p in reversed(client.published):  # type: ignore[attr-defined]
        if p.uri == uri and (version is None or p.version == version):
            return p.diagnostics
    return None


def check_json(root: pathlib.Path, *paths: str, extra: tuple = ()) -> list:
    p = subprocess.run(
        [BINARY, "check", *paths, "--format", "json", "--no-cache", *extra],
        capture_output=True,
        cwd=root,
    )
    assert p.returncode in (0, 1), p.stderr.decode()
    return json.loads(p.stdout)["diagnostics"]


def explain(rule: str) -> str:
    return subprocess.run([BINARY, "explain", rule], capture_output=True, check=True).stdout.decode()


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def expected(root: pathlib.Path, name: str) -> list:
    """`check`'s findings of a file, as the protocol places them."""
    lines = (root / name).read_text(encoding="utf-8").split("\n")

    def pos(line: int, col: int) -> tuple:
        text = lines[line - 1] if line - 1 < len(lines) else ""
        return (line - 1, utf16(text[: col - 1]))

    return sorted(
        (d["rule"], pos(d["line"], d["column"]), pos(d["end_line"], d["end_column"]), d["message"])
        for d in check_json(root, name)
    )


def got(diags: list) -> list:
    return sorted(
        (
            d.code,
            (d.range.start.line, d.range.start.character),
            (d.range.end.line, d.range.end.character),
            d.message.split("\nhelp: ")[0],
        )
        for d in diags
    )


def strip_label(found: list, check: list) -> list:
    """The server's messages carry the primary label's text after the
    message, in parentheses: compare up to check's message."""
    out = []
    for f, c in zip(found, check):
        msg = f[3]
        if msg.startswith(c[3]):
            msg = c[3]
        out.append((f[0], f[1], f[2], msg))
    return out


@pytest.fixture
def work(tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copy(ROOT / "corpus/prompts/bad-prompt.md", tmp_path / "skill.md")
    shutil.copy(ROOT / "corpus/board-mistakes/kiwi.jsonl", tmp_path / "kiwi.jsonl")
    return tmp_path


def apply(text: str, edits: List[types.TextEdit]) -> str:
    """Apply edits as an editor does (positions in UTF-16)."""
    lines = text.split("\n")

    def offset(p: types.Position) -> int:
        at = sum(len(line) + 1 for line in lines[: p.line])
        line = lines[p.line] if p.line < len(lines) else ""
        units = 0
        k = 0
        while k < len(line) and units < p.character:
            units += utf16(line[k])
            k += 1
        return at + k

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a, b = offset(e.range.start), offset(e.range.end)
        text = text[:a] + e.new_text + text[b:]
    return text


@pytest.mark.asyncio
async def test_a_bad_skill_and_a_bad_log_get_checks_findings_at_their_ranges(client: LanguageClient, work):
    await start(client, work)
    skill = open_file(client, work / "skill.md")
    log = open_file(client, work / "kiwi.jsonl")
    for uri, name in ((skill, "skill.md"), (log, "kiwi.jsonl")):
        diags = await until(lambda: published_for(client, uri))
        want = expected(work, name)
        assert len(want) >= 4, want
        assert strip_label(got(diags), want) == want, name
        for d in diags:
            assert d.source == "callint"
            # The code links to the rule's page, as `callint explain` prints it.
            page = pathlib.Path(CACHE, "callint", d.code_description.href.rsplit("/callint/", 1)[1])
            assert d.code_description.href == page.as_uri()
            assert page.read_text(encoding="utf-8") == explain(d.code)
            assert d.severity in (
                types.DiagnosticSeverity.Error,
                types.DiagnosticSeverity.Warning,
                types.DiagnosticSeverity.Information,
            )
    # A finding's other places come as related information.
    diags = published_for(client, log)
    related = [d for d in diags if d.related_information]
    assert related, diags
    assert all(r.location.uri == log for d in related for r in d.related_information)


@pytest.mark.asyncio
async def test_columns_are_utf16_units_on_lines_with_emoji(client: LanguageClient, tmp_path):
    text = (
        "# Skill \u2728 f\u00fcr \u00dc\n\n```json\n"
        '{"call_id": "f\u00fcr-\U0001F680\U0001F389", "label": "release-agent-for-oliver-v2", "greet": true}\n'
        "```\n"
    )
    (tmp_path / "skill.md").write_text(text, encoding="utf-8")
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "skill.md")
    diags = await until(lambda: published_for(client, uri))
    assert [d.code for d in diags] == ["label-too-long"]
    line = text.split("\n")[3]
    start_at = line.index('"release-agent')
    r = diags[0].range
    assert (r.start.line, r.start.character) == (3, utf16(line[:start_at]))
    # Two emoji before it: two UTF-16 units more than characters.
    assert r.start.character == start_at + 2
    assert line[start_at:].startswith('"release-agent-for-oliver-v2"')
    assert r.end.character - r.start.character == len('"release-agent-for-oliver-v2"')
    assert expected(tmp_path, "skill.md")[0][1] == (r.start.line, r.start.character)


@pytest.mark.asyncio
async def test_an_edit_that_fixes_the_finding_clears_it(client: LanguageClient, tmp_path):
    bad = '# Skill\n\n```json\n{"call_id": "x", "label": "release-agent-for-oliver-v2", "greet": true}\n```\n'
    (tmp_path / "skill.md").write_text(bad, encoding="utf-8")
    await start(client, tmp_path)
    uri = open_file(client, tmp_path / "skill.md")
    diags = await until(lambda: published_for(client, uri, 1))
    assert [d.code for d in diags] == ["label-too-long"]
    # An incremental edit: the label shortened in place.
    start_at = bad.split("\n")[3].index("release-agent-for-oliver-v2")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=3, character=start_at),
                        end=types.Position(line=3, character=start_at + len("release-agent-for-oliver-v2")),
                    ),
                    text="release-agent",
                )
            ],
        )
    )
    assert await until(lambda: published_for(client, uri, 2) is not None)
    assert list(published_for(client, uri, 2)) == []


@pytest.mark.asyncio
async def test_changes_in_a_burst_are_linted_once(client: LanguageClient, tmp_path):
    (tmp_path / "skill.md").write_text("# Skill\n", encoding="utf-8")
    await start(client, tmp_path, debounceMs=300)
    uri = open_file(client, tmp_path / "skill.md")
    await until(lambda: published_for(client, uri, 1) is not None)
    line = '{"call_id": "x", "label": "release-agent-for-oliver-v2", "greet": true}'
    for v in range(2, 7):
        text = "# Skill\n\n```json\n" + line + "\n```\n" + "\n" * v
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=v),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    diags = await until(lambda: published_for(client, uri, 6))
    assert [d.code for d in diags] == ["label-too-long"]
    await asyncio.sleep(0.5)
    versions = [p.version for p in client.published if p.uri == uri]  # type: ignore[attr-defined]
    assert versions == [1, 6]


@pytest.mark.asyncio
async def test_hover_shows_the_rules_page_as_explain_prints_it(client: LanguageClient, work):
    await start(client, work)
    uri = open_file(client, work / "skill.md")
    diags = await until(lambda: published_for(client, uri))
    async def hover_at(d: types.Diagnostic):
        return await client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=d.range.start)
        )

    d = next(d for d in diags if d.code == "label-too-long")
    hover = await hover_at(d)
    assert hover is not None
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == explain("label-too-long")
    assert hover.range == d.range
    # Inside the board, which has no emoji: the item's rule, then the board's.
    d = next(d for d in diags if d.code == "board-bundle")
    hover = await hover_at(d)
    assert hover.contents.value == explain("board-bundle") + "\n---\n\n" + explain("board-missing-emoji")
    # Nothing to show away from a finding.
    empty = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=0))
    )
    assert empty is None


async def actions_at(client: LanguageClient, uri: str, d: types.Diagnostic) -> list:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("rule", ["label-too-long", "long-say", "timeout-events-dropped"])
async def test_the_suppression_action_applied_makes_the_finding_go(client: LanguageClient, work, rule):
    await start(client, work)
    text = (work / "skill.md").read_text(encoding="utf-8")
    uri = open_file(client, work / "skill.md")
    diags = await until(lambda: published_for(client, uri, 1))
    d = next(d for d in diags if d.code == rule)
    actions = await actions_at(client, uri, d)
    silence = [a for a in actions if isinstance(a, types.CodeAction)]
    assert len(silence) == 1, actions
    [change] = silence[0].edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 1
    edits = change.edits
    assert all(f"callint: ignore[{rule}]" in e.new_text for e in edits)
    fixed = apply(text, edits)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    after = await until(lambda: published_for(client, uri, 2))
    codes = sorted(x.code for x in after)
    want = sorted(x.code for x in diags)
    want.remove(rule)
    assert codes == want
    # The file saved: check agrees.
    (work / "skill.md").write_text(fixed, encoding="utf-8")
    assert sorted(x[0] for x in expected(work, "skill.md")) == want


@pytest.mark.asyncio
async def test_add_to_baseline_writes_the_baseline_check_reads(client: LanguageClient, work):
    await start(client, work)
    uri = open_file(client, work / "kiwi.jsonl")
    diags = await until(lambda: published_for(client, uri, 1))
    d = next(d for d in diags if d.code == "board-bundle")
    actions = await actions_at(client, uri, d)
    # A log has no inline suppression: the baseline only.
    assert len(actions) == 1 and isinstance(actions[0], types.Command), actions
    command = actions[0]
    assert command.command == "callint.addToBaseline"
    before = len(client.published)  # type: ignore[attr-defined]
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
    )
    await until(lambda: len(client.published) > before)  # type: ignore[attr-defined]
    after = published_for(client, uri)
    assert sorted(x.code for x in after) == sorted(x.code for x in diags if x is not d)
    baseline = work / "callint-baseline.json"
    assert json.loads(baseline.read_text())["findings"][0]["rule"] == "board-bundle"
    # `check --baseline` from the workspace's root accepts the same finding.
    left = check_json(work, "kiwi.jsonl", extra=("--baseline", "callint-baseline.json"))
    assert sorted(x["rule"] for x in left) == sorted(x.code for x in after)


@pytest.mark.asyncio
async def test_a_growing_log_gives_its_new_finding(client: LanguageClient, work):
    log = work / "notes.jsonl"
    lines = (ROOT / "corpus/board-mistakes/release-notes.jsonl").read_text(encoding="utf-8").split("\n")
    # The first line alone: nothing wrong yet.
    log.write_text(lines[0] + "\n", encoding="utf-8")
    await start(client, work)
    uri = open_file(client, log)
    await until(lambda: published_for(client, uri) is not None)
    assert list(published_for(client, uri)) == []
    # The agent's client writes on: a join with a label too long.
    with log.open("a", encoding="utf-8") as f:
        f.write(lines[1] + "\n")
        f.write('{"ts":"2026-10-10T14:01:05')  # a line still being written
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]
        )
    )
    diags = await until(lambda: published_for(client, uri))
    assert [d.code for d in diags] == ["label-too-long"]
    assert diags[0].range.start.line == 1
    # What check finds on the complete lines.
    (work / "done.jsonl").write_text(lines[0] + "\n" + lines[1] + "\n", encoding="utf-8")
    assert [x[0] for x in expected(work, "done.jsonl")] == ["label-too-long"]


@pytest.mark.asyncio
async def test_diagnostics_are_pulled_from_a_client_that_pulls(client: LanguageClient, work):
    await start(client, work, editor="neovim@v0.10.0")
    uri = open_file(client, work / "skill.md")
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert report.kind == "full"
    want = expected(work, "skill.md")
    assert strip_label(got(report.items), want) == want
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id
        )
    )
    assert again.kind == "unchanged"
    # Nothing was pushed to a client that pulls.
    assert client.published == []  # type: ignore[attr-defined]
    # A file that is not open: read from disk.
    other = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=(work / "kiwi.jsonl").as_uri()))
    )
    want = expected(work, "kiwi.jsonl")
    assert strip_label(got(other.items), want) == want


@pytest.mark.asyncio
async def test_a_cancelled_pending_pull_is_answered_request_cancelled(client: LanguageClient, work):
    """LSP 3.17, $/cancelRequest: a request cancelled before it is answered
    gets the error RequestCancelled (-32800). A pull waits for the lint of
    the latest change, which the pause after a change holds back here."""
    from pygls.exceptions import JsonRpcException

    await start(client, work, editor="neovim@v0.10.0", debounceMs=600000)
    uri = open_file(client, work / "skill.md")
    doc = types.TextDocumentIdentifier(uri=uri)
    first = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=doc))
    assert first.kind == "full" and first.items
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="# Skill\n")],
        )
    )
    pending = client.protocol.send_request(
        types.TEXT_DOCUMENT_DIAGNOSTIC, types.DocumentDiagnosticParams(text_document=doc), msg_id="pending-pull"
    )
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="pending-pull"))
    with pytest.raises(JsonRpcException) as e:
        await asyncio.wait_for(asyncio.wrap_future(pending), 20)
    assert e.value.code == -32800
    # The server goes on: a hover is answered from what was linted before.
    at = first.items[0].range.start
    hover = await client.text_document_hover_async(types.HoverParams(text_document=doc, position=at))
    assert hover is not None


@pytest.mark.asyncio
async def test_malformed_messages_are_answered_and_the_server_goes_on(client: LanguageClient, work):
    await start(client, work)
    stdin = client._server.stdin
    for body in (b"{this is not json", b'{"jsonrpc":"2.0","id":99,"method":7}'):
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdin.write(b"Content-Length: twelve\r\n\r\n")
    await stdin.drain()
    # Unknown methods and bad parameters get errors too.
    with pytest.raises(Exception):
        await client.protocol.send_request_async("callint/nothing", {})
    bad = b'{"jsonrpc":"2.0","id":"bad-hover","method":"textDocument/hover","params":{"position":"here"}}'
    stdin.write(b"Content-Length: %d\r\n\r\n" % len(bad) + bad)
    await stdin.drain()
    # Still serving.
    uri = open_file(client, work / "skill.md")
    diags = await until(lambda: published_for(client, uri))
    assert diags
    assert client._server.returncode is None


@pytest.mark.asyncio
async def test_shutdown_and_exit_end_the_process_cleanly(client: LanguageClient, work):
    await start(client, work)
    open_file(client, work / "skill.md")
    await client.shutdown_async(None)
    client.exit(None)
    code = await asyncio.wait_for(client._server.wait(), 10)
    assert code == 0
    client.capabilities = None  # already shut down


def test_unreadable_messages_get_json_rpc_errors_in_order() -> None:
    """What the client library hides: the error answers themselves, read
    off the server's standard output."""

    def frame(body: bytes) -> bytes:
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    messages = [
        frame(init.encode()),
        frame(b"{oops"),
        frame(b'{"jsonrpc":"2.0","id":99,"method":7}'),
        b"Content-Length: x\r\n\r\n",
        frame(b'{"jsonrpc":"2.0","id":"h","method":"textDocument/hover","params":{"position":"here"}}'),
        frame(b'{"jsonrpc":"2.0","id":"n","method":"callint/nothing"}'),
        frame(b'{"jsonrpc":"2.0","id":3,"method":"shutdown"}'),
        frame(b'{"jsonrpc":"2.0","method":"exit"}'),
    ]
    p = subprocess.run([BINARY, "server"], input=b"".join(messages), capture_output=True, timeout=30)
    assert p.returncode == 0, p.stderr.decode()
    answers = []
    rest = p.stdout
    while rest:
        head, _, rest = rest.partition(b"\r\n\r\n")
        n = int(head.split(b":")[1])
        answers.append(json.loads(rest[:n]))
        rest = rest[n:]
    errors = {json.dumps(a["id"]): a["error"]["code"] for a in answers if "error" in a}
    # Unreadable frames have no id to answer with: null, twice.
    nulls = [a["error"]["code"] for a in answers if "error" in a and a["id"] is None]
    assert sorted(nulls) == [-32700, -32700]
    assert errors["99"] == -32600
    assert errors['"h"'] == -32602
    assert errors['"n"'] == -32601
    results = {a["id"]: a.get("result") for a in answers if "result" in a}
    assert results[3] is None and "capabilities" in results[1]
