"""callint: lint recorded multi-agent voice calls from Python.

The same linter as the ``callint`` command, called in-process::

    import callint

    for finding in callint.check("logs/"):
        print(finding["file"], finding["line"], finding["rule"], finding["message"])

    callint.assert_clean("tests/calls/booking.jsonl")   # in an agent's tests

    callint.audit_html("logs/", "audit/")   # the audit's page: audit/index.html

Each finding is the dict ``callint check --format json`` writes for it
(``rule``, ``severity``, ``file``, ``line``, ``column``, ``end_line``,
``end_column``, ``message``, ``agent``, ``help``, ``labels``, ``call``,
``timestamp``, ``fingerprint``).
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from callint import _callint
from callint._callint import CallintError

__all__ = [
    "CallintError",
    "CallintWarning",
    "__version__",
    "assert_clean",
    "audit",
    "audit_html",
    "check",
    "explain",
    "rules",
]

__version__: str = _callint.__version__

PathLike = Union[str, "os.PathLike[str]"]
Data = Union[bytes, str, Mapping[str, Union[bytes, str]]]


class CallintWarning(UserWarning):
    """An input that a run skipped, with the reason (as the command line warns)."""


def _paths(paths: Union[None, PathLike, Iterable[PathLike]]) -> List[str]:
    if paths is None:
        return []
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _data(data: Optional[Data]) -> List[tuple]:
    if data is None:
        return []
    if isinstance(data, (bytes, str)):
        data = {"-": data}
    return [
        (name, content.encode("utf-8") if isinstance(content, str) else bytes(content))
        for name, content in data.items()
    ]


def _rules(names: Union[None, str, Sequence[str]]) -> Optional[List[str]]:
    if names is None:
        return None
    if isinstance(names, str):
        names = names.split(",")
    return [n.strip() for n in names if n.strip()]


def _run(
    paths: Union[None, PathLike, Iterable[PathLike]],
    data: Optional[Data],
    fmt: str,
    input_format: Optional[str],
    config: Union[None, PathLike, bool],
    select: Union[None, str, Sequence[str]],
    ignore: Union[None, str, Sequence[str]],
    jobs: Optional[int],
    merge: bool,
) -> tuple:
    document, findings, skipped, errors = _callint.check_document(
        _paths(paths),
        _data(data),
        fmt,
        **_options(input_format, config, select, ignore, jobs, merge),
    )
    _settle(document, skipped, errors, stacklevel=4)
    return document, findings


def _options(
    input_format: Optional[str],
    config: Union[None, PathLike, bool],
    select: Union[None, str, Sequence[str]],
    ignore: Union[None, str, Sequence[str]],
    jobs: Optional[int],
    merge: bool,
) -> Dict[str, Any]:
    """The linting options that check and audit share, as the native
    module takes them."""
    return {
        "input_format": input_format,
        "config": None if config is None or isinstance(config, bool) else os.fspath(config),
        "no_config": config is False,
        "select": _rules(select),
        "ignore": _rules(ignore) or [],
        "jobs": jobs,
        "merge": merge,
    }


def _settle(document: str, skipped: List[str], errors: List[str], stacklevel: int) -> None:
    """Warn of the inputs left out; raise when some could not be read."""
    for w in skipped:
        warnings.warn(w, CallintWarning, stacklevel=stacklevel)
    if errors:
        error = CallintError("\n".join(errors))
        error.errors = list(errors)
        error.document = document
        raise error


def check(
    paths: Union[None, PathLike, Iterable[PathLike]] = None,
    data: Optional[Data] = None,
    input_format: Optional[str] = None,
    config: Union[None, PathLike, bool] = None,
    select: Union[None, str, Sequence[str]] = None,
    ignore: Union[None, str, Sequence[str]] = None,
    *,
    summary: bool = False,
    jobs: Optional[int] = None,
    merge: bool = True,
) -> Union[List[Dict[str, Any]], Dict[str, Any]]:
    """Lint calls and return their findings.

    Args:
        paths: files or folders (every file below a folder that callint
            reads), as for ``callint check``. With neither ``paths`` nor
            ``data``, the current folder is checked.
        data: the content of a file to lint, as bytes or text (filed under
            ``-``), or a mapping of names to contents (the name tells the
            format when the content does not, and finds ``callint.toml``).
        input_format: read every input as this format (``native``, ``mcp``,
            ``claude-code``, ``codex``, ``opencode``, ``vtt``, ...) instead
            of telling it by content.
        config: a ``callint.toml`` to use for every input; ``False`` for
            none (the defaults); ``None`` for the nearest one above each file.
        select: only these rules (a list, or names separated by commas).
        ignore: skip these rules as well.
        summary: return the whole document of ``--format json`` (``version``,
            ``diagnostics``, ``summary``) instead of the list of findings.
        jobs: files linted at once (default: every core).
        merge: join the logs of one call into the room timeline, as the
            command line does unless ``--no-merge``.

    Returns:
        The findings, each the dict ``--format json`` writes for it; or the
        whole document with ``summary=True``.

    Raises:
        CallintError: an unknown rule or format, a configuration that
            cannot be read, or inputs that could not be read (the error's
            ``errors`` lists them, its ``document`` holds the findings of
            the rest as JSON).
    """
    document, _ = _run(paths, data, "json", input_format, config, select, ignore, jobs, merge)
    report = json.loads(document)
    return report if summary else report["diagnostics"]


def assert_clean(
    paths: Union[None, PathLike, Iterable[PathLike]] = None,
    data: Optional[Data] = None,
    input_format: Optional[str] = None,
    config: Union[None, PathLike, bool] = None,
    select: Union[None, str, Sequence[str]] = None,
    ignore: Union[None, str, Sequence[str]] = None,
) -> None:
    """Fail with the concise report when a call breaks any rule.

    Meant for the tests of a voice agent: record a simulated call, then
    ``callint.assert_clean(path)``. The arguments are those of :func:`check`.

    Raises:
        AssertionError: with one ``file:line:col: severity[rule] message``
            line per finding, and the summary line.
        CallintError: as :func:`check`.
    """
    document, findings = _run(
        paths, data, "concise", input_format, config, select, ignore, None, True
    )
    if findings:
        raise AssertionError("callint found rule breaks:\n" + document.rstrip("\n"))


def audit(
    paths: Union[None, PathLike, Iterable[PathLike]] = None,
    *,
    calls: int = 50,
    baseline: Optional[PathLike] = None,
    input_format: Optional[str] = None,
    config: Union[None, PathLike, bool] = None,
    select: Union[None, str, Sequence[str]] = None,
    ignore: Union[None, str, Sequence[str]] = None,
    jobs: Optional[int] = None,
    merge: bool = True,
) -> Dict[str, Any]:
    """The audit's numbers, as ``callint audit --format json`` prints them:
    counts and rates by rule and agent (``statistics``, as ``check
    --statistics``), by the day each call took place (``days``), and the
    calls to open first (``top``).

    ``calls`` is how many calls to list first (each rule's and agent's three
    with most findings of it come on top); with ``baseline``, only the
    findings it does not list are counted, and its entries that matched
    nothing are listed as fixed. The other arguments are those of
    :func:`check`.

    Raises:
        CallintError: as :func:`check`.
    """
    document, skipped, errors = _callint.audit_document(
        _paths(paths),
        calls=calls,
        baseline=None if baseline is None else os.fspath(baseline),
        **_options(input_format, config, select, ignore, jobs, merge),
    )
    _settle(document, skipped, errors, stacklevel=3)
    return json.loads(document)


def audit_html(
    source: Union[PathLike, Iterable[PathLike], Mapping[str, Any], Sequence[Mapping[str, Any]]],
    out: PathLike,
    *,
    calls: int = 50,
    title: Optional[str] = None,
    input_format: Optional[str] = None,
    config: Union[None, PathLike, bool] = None,
    select: Union[None, str, Sequence[str]] = None,
    ignore: Union[None, str, Sequence[str]] = None,
    jobs: Optional[int] = None,
    merge: bool = True,
) -> str:
    """Write the audit's folder, as ``callint audit --html OUT`` does:
    ``OUT/index.html``, and the post-mortem of each call to open first in
    ``OUT/calls/``. Returns the path of ``index.html``.

    ``source`` is what to audit (paths, audited first with the other
    arguments), or an audit document (:func:`audit`'s dict), or several
    (the parts of a folder audited apart, each holding whole calls, such
    as the partitions of :func:`callint.cluster.audit_html`), which are
    summed into one. The post-mortems are written from the logs the
    documents name, which must be readable here.

    Raises:
        CallintError: a document that is no audit, or a folder that cannot
            be written; and as :func:`audit`.
    """
    if isinstance(source, Mapping):
        documents = [source]
    elif isinstance(source, (list, tuple)) and source and all(isinstance(d, Mapping) for d in source):
        documents = list(source)
    else:
        paths = _paths(source)  # type: ignore[arg-type]
        documents = [
            audit(
                paths,
                calls=calls,
                input_format=input_format,
                config=config,
                select=select,
                ignore=ignore,
                jobs=jobs,
                merge=merge,
            )
        ]
        if title is None:
            title = paths[0] if len(paths) == 1 else f"{len(paths)} paths"
    no_config = config is False
    config_path = None if config is None or isinstance(config, bool) else os.fspath(config)
    notes = _callint.audit_folder(
        [json.dumps(d) for d in documents],
        os.fspath(out),
        title or "calls",
        calls=calls,
        input_format=input_format,
        config=config_path,
        no_config=no_config,
        select=_rules(select),
        ignore=_rules(ignore) or [],
        jobs=jobs,
        merge=merge,
    )
    for n in notes:
        warnings.warn(n, CallintWarning, stacklevel=2)
    return os.path.join(os.fspath(out), "index.html")


def rules() -> List[Dict[str, Any]]:
    """The rule catalogue: name, seed, default_severity, scope, summary, options."""
    return json.loads(_callint.rules_json())


def explain(rule: str) -> str:
    """A rule's page (why it exists, Bad and Good examples), as ``callint explain``.

    Raises:
        CallintError: no rule has that name.
    """
    return _callint.explain(rule)
