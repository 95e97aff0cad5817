"""callint: lint recorded multi-agent voice calls from Python.

The same linter as the ``callint`` command, called in-process::

    import callint

    for finding in callint.check("logs/"):
        print(finding["file"], finding["line"], finding["rule"], finding["message"])

    callint.assert_clean("tests/calls/booking.jsonl")   # in an agent's tests

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
    no_config = config is False
    config_path = None if config is None or isinstance(config, bool) else os.fspath(config)
    document, findings, skipped, errors = _callint.check_document(
        _paths(paths),
        _data(data),
        fmt,
        input_format=input_format,
        config=config_path,
        no_config=no_config,
        select=_rules(select),
        ignore=_rules(ignore) or [],
        jobs=jobs,
        merge=merge,
    )
    for w in skipped:
        warnings.warn(w, CallintWarning, stacklevel=3)
    if errors:
        error = CallintError("\n".join(errors))
        error.errors = list(errors)
        error.document = document
        raise error
    return document, findings


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


def rules() -> List[Dict[str, Any]]:
    """The rule catalogue: name, seed, default_severity, scope, summary, options."""
    return json.loads(_callint.rules_json())


def explain(rule: str) -> str:
    """A rule's page (why it exists, Bad and Good examples), as ``callint explain``.

    Raises:
        CallintError: no rule has that name.
    """
    return _callint.explain(rule)
