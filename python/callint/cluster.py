"""Audit a fleet's calls on a Dask cluster.

The logs are cut into partitions that each hold whole calls (the logs whose
first lines name the same call id, which the room pass joins, and the other
files by folder), every partition is
checked by :func:`callint.check` on a worker, and the reports are combined
into one, with the findings and the summary counts that one
``callint check`` over the same paths gives::

    from dask.distributed import Client
    from callint import cluster

    client = Client("tcp://scheduler:8786")      # or LocalCluster() for one machine
    report = cluster.audit(["/data/calls/2026-11"])
    cluster.write_jsonl(report["diagnostics"], "findings.jsonl")
    cluster.audit_html(["/data/calls/2026-11"], "audit/")   # the audit's page

The workers read the paths themselves: they must see the same file system
(a shared mount, or the same paths on every worker).
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, Iterable, List, Optional, Union

import callint
from callint import _callint

__all__ = ["audit", "audit_html", "check_partition", "combine", "partitions", "write_jsonl"]

PathLike = Union[str, "os.PathLike[str]"]


def partitions(
    paths: Union[PathLike, Iterable[PathLike]],
    no_ignore: bool = False,
    input_format: Optional[str] = None,
) -> List[List[str]]:
    """The files ``callint check`` would read below ``paths``, in groups that
    can be checked apart: the logs whose first lines name the same call id
    together (the room pass joins them), every other file with the others
    of its folder.

    Raises:
        callint.CallintError: a path that cannot be read.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files, problems = _callint.walk([os.fspath(p) for p in paths], no_ignore)
    if problems:
        raise callint.CallintError("\n".join(problems))
    return _callint.partitions(files, input_format)


def check_partition(files: List[str], **options: Any) -> Dict[str, Any]:
    """One partition's report (``check(files, summary=True)``), on one core:
    the cluster gives the parallelism."""
    options.setdefault("jobs", 1)
    return callint.check(files, summary=True, **options)


def _check_groups(groups: Iterable[List[str]], **options: Any) -> List[Dict[str, Any]]:
    # One check for all the groups of a task: each group holds whole calls,
    # so checking them together finds what checking them apart does.
    files = [f for g in groups for f in g]
    return [check_partition(files, **options)] if files else []


def _per_100(n: int, says: int) -> Optional[float]:
    # As callint rounds: half away from zero, to two places.
    return math.floor(n * 10_000 / says + 0.5) / 100 if says else None


def combine(reports: Iterable[Dict[str, Any]]) -> Dict[str, Any]:
    """The reports of several partitions as one, as a single run gives it."""
    findings: List[Dict[str, Any]] = []
    totals = {"files": 0, "records": 0, "diagnostics": 0, "baselined": 0}
    by_rule: Dict[str, int] = {}
    by_severity: Dict[str, int] = {}
    by_agent: Dict[str, int] = {}
    says: Dict[str, int] = {}
    for r in reports:
        findings.extend(r["diagnostics"])
        s = r["summary"]
        for k in totals:
            totals[k] += s[k]
        for total, part in ((by_rule, s["by_rule"]), (by_severity, s["by_severity"]), (by_agent, s["by_agent"])):
            for k, n in part.items():
                total[k] = total.get(k, 0) + n
        for agent, stat in s["statistics"]["agents"].items():
            says[agent] = says.get(agent, 0) + stat["says"]
    all_says = sum(says.values())
    rules = sorted(by_rule.items(), key=lambda kv: (-kv[1], kv[0]))
    agents = sorted(set(by_agent) | set(says))
    summary = dict(totals)
    summary.update(
        says=all_says,
        by_rule=dict(sorted(by_rule.items())),
        by_severity=dict(sorted(by_severity.items())),
        by_agent=dict(sorted(by_agent.items())),
        statistics={
            "rules": {r: {"diagnostics": n, "per_100_says": _per_100(n, all_says)} for r, n in sorted(rules)},
            "agents": {
                a: {
                    "says": says.get(a, 0),
                    "diagnostics": by_agent.get(a, 0),
                    "per_100_says": _per_100(by_agent.get(a, 0), says.get(a, 0)),
                }
                for a in agents
            },
        },
    )
    return {"version": 1, "diagnostics": findings, "summary": summary}


def audit(
    paths: Union[PathLike, Iterable[PathLike]],
    npartitions: Optional[int] = None,
    no_ignore: bool = False,
    **options: Any,
) -> Dict[str, Any]:
    """Check every call below ``paths`` on the Dask scheduler in use (the
    ``Client`` made last, or Dask's default), and combine the reports.

    ``npartitions`` is the number of tasks (default: 64, or fewer when there
    are fewer partitions); each task is one ``callint.check`` over whole
    calls. ``options`` are those of :func:`callint.check` (``select``,
    ``ignore``, ``config``, ``input_format``).
    """
    import dask.bag as db

    parts = partitions(paths, no_ignore=no_ignore, input_format=options.get("input_format"))
    if not parts:
        return combine([])
    # A few tasks a worker: each task is one callint check over its groups.
    bag = db.from_sequence(parts, npartitions=npartitions or min(len(parts), 64))
    return combine(bag.map_partitions(_check_groups, **options).compute())


def _audit_groups(groups: Iterable[List[str]], **options: Any) -> List[Dict[str, Any]]:
    files = [f for g in groups for f in g]
    options.setdefault("jobs", 1)
    return [callint.audit(files, **options)] if files else []


def audit_html(
    paths: Union[PathLike, Iterable[PathLike]],
    out: PathLike,
    npartitions: Optional[int] = None,
    no_ignore: bool = False,
    calls: int = 50,
    **options: Any,
) -> str:
    """The audit's folder (:func:`callint.audit_html`) of every call below
    ``paths``: each partition is audited on a worker
    (:func:`callint.audit`), and the documents are summed into one page
    here, where the post-mortems of the calls to open first are written
    from their logs. Returns the path of ``index.html``.

    ``options`` are those of :func:`callint.audit` (``select``, ``ignore``,
    ``config``, ``input_format``, ``baseline``).
    """
    import dask.bag as db

    parts = partitions(paths, no_ignore=no_ignore, input_format=options.get("input_format"))
    if isinstance(paths, (str, os.PathLike)):
        title = os.fspath(paths)
    else:
        shown = [os.fspath(p) for p in paths]
        title = shown[0] if len(shown) == 1 else f"{len(shown)} paths"
    documents: List[Dict[str, Any]] = []
    if parts:
        bag = db.from_sequence(parts, npartitions=npartitions or min(len(parts), 64))
        documents = bag.map_partitions(_audit_groups, calls=calls, **options).compute()
    page_options = {k: v for k, v in options.items() if k != "baseline"}
    return callint.audit_html(documents or [_empty()], out, calls=calls, title=title, **page_options)


def _empty() -> Dict[str, Any]:
    # The audit of nothing.
    return {
        "version": 1, "files": 0, "records": 0, "calls": 0, "diagnostics": 0, "baselined": 0,
        "by_rule": {}, "by_severity": {}, "by_agent": {}, "says": {},
        "statistics": {"rules": {}, "agents": {}}, "days": {}, "top": [], "baseline": None,
    }


def write_jsonl(findings: Iterable[Dict[str, Any]], path: PathLike) -> int:
    """Write findings as JSON Lines (one finding an object), for a warehouse;
    returns how many. For Parquet: ``pandas.DataFrame(findings).to_parquet(path)``."""
    n = 0
    with open(path, "w", encoding="utf-8") as out:
        for f in findings:
            out.write(json.dumps(f, ensure_ascii=False))
            out.write("\n")
            n += 1
    return n
