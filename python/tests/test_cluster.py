"""A folder of logs audited on a Dask cluster of several worker processes
gives the findings and summary counts of one ``callint check``."""

from __future__ import annotations

import json

import pytest

import callint
from callint import cluster
from conftest import run

distributed = pytest.importorskip("dask.distributed")


def key(f: dict) -> tuple:
    return (f["file"], f["line"], f["column"], f["rule"], f["message"])


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc:
        with distributed.Client(lc) as c:
            yield c


def test_a_dask_audit_is_one_check_over_the_folder(client, binary, tmp_path) -> None:
    expected = json.loads(run([binary, "check", "corpus", "--format", "json", "--no-cache"]).stdout)
    assert len(client.scheduler_info()["workers"]) == 2
    report = cluster.audit("corpus")
    assert sorted(map(key, report["diagnostics"])) == sorted(map(key, expected["diagnostics"]))
    assert report["summary"] == expected["summary"]
    # Every partition was checked on a worker process, not here.
    assert sum(len(p) for p in cluster.partitions("corpus")) == expected["summary"]["files"]

    out = tmp_path / "findings.jsonl"
    assert cluster.write_jsonl(report["diagnostics"], out) == expected["summary"]["diagnostics"]
    lines = out.read_text(encoding="utf-8").splitlines()
    assert sorted(key(json.loads(l)) for l in lines) == sorted(map(key, expected["diagnostics"]))


def test_logs_of_one_call_in_different_folders_are_joined(client, binary, root, tmp_path) -> None:
    # The two logs of one call, each in a folder of its own: the room pass
    # of one check joins them, and so must the partitions.
    for i, log in enumerate(sorted((root / "corpus" / "several-logs").glob("*.jsonl"))):
        (tmp_path / f"day{i}").mkdir()
        (tmp_path / f"day{i}" / log.name).write_bytes(log.read_bytes())
    expected = json.loads(run([binary, "check", str(tmp_path), "--format", "json", "--no-cache"]).stdout)
    assert expected["summary"]["diagnostics"] == 3
    assert len(cluster.partitions(tmp_path)) == 1
    report = cluster.audit(tmp_path)
    assert sorted(map(key, report["diagnostics"])) == sorted(map(key, expected["diagnostics"]))
    assert report["summary"] == expected["summary"]


def test_options_reach_the_workers(client, binary) -> None:
    expected = json.loads(
        run([binary, "check", "corpus", "--select", "wrong-language", "--format", "json", "--no-cache"]).stdout
    )
    report = cluster.audit(["corpus"], select=["wrong-language"])
    assert report["summary"] == expected["summary"]
    assert {f["rule"] for f in report["diagnostics"]} == {"wrong-language"}


def test_parquet_for_a_warehouse(client, tmp_path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    report = cluster.audit("corpus/seed-incident")
    pd.DataFrame(report["diagnostics"]).to_parquet(tmp_path / "f.parquet")
    back = pd.read_parquet(tmp_path / "f.parquet")
    assert list(back["rule"]) == [f["rule"] for f in report["diagnostics"]]


def test_an_unreadable_path_stops_the_audit() -> None:
    with pytest.raises(callint.CallintError, match="no/such"):
        cluster.partitions(["corpus/clean-en", "no/such"])


def test_a_dask_audit_page_is_the_commands(client, binary, tmp_path) -> None:
    run([binary, "audit", "corpus", "--no-cache", "--html", str(tmp_path / "cli")])
    index = cluster.audit_html("corpus", tmp_path / "dask")

    def data(path):
        text = open(path, encoding="utf-8").read()
        start = text.index(">", text.index('id="audit-data"')) + 1
        return json.loads(text[start : text.index("</script>", start)])

    from test_module import assert_same_page

    assert_same_page(data(index), data(tmp_path / "cli" / "index.html"))
