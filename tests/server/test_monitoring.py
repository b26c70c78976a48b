"""The monitoring kit (issue 35, deploy/prometheus, deploy/grafana, docs/server.md "Metrics"): the metrics
table in the docs is the one the code makes; every metric has its note; the alert rules pass promtool's check
and its unit tests (Debian's `prometheus` package); the scrape config is valid; the Grafana dashboard has the
shape Grafana loads; every metric the rules and the dashboard name is one the server exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from paohuzi.server.metrics import NOTES, Metrics, reference_table

ROOT = Path(__file__).parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
DASHBOARD = ROOT / "deploy" / "grafana" / "paohuzi-dashboard.json"
BEGIN, END = "<!-- metrics table: begin (generated) -->", "<!-- metrics table: end -->"
promtool = pytest.mark.skipif(shutil.which("promtool") is None, reason="no promtool (apt-get install prometheus)")


def _exported() -> set[str]:
    """Every series name the server exports (histograms' ``_bucket``/``_sum``/``_count``, counters' ``_total``)."""
    names = set()
    for family in Metrics(lambda: None).registry.collect():
        if family.type == "histogram":
            names |= {family.name + s for s in ("_bucket", "_sum", "_count")}
        else:
            names.add(f"{family.name}_total" if family.type == "counter" else family.name)
    return names


def _named(expr: str) -> set[str]:
    return set(re.findall(r"\b((?:paohuzi|process)_[a-z_]+)\b", expr))


def test_the_docs_table_is_the_one_the_code_makes() -> None:
    text = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    table = text.split(BEGIN)[1].split(END)[0].strip()
    assert table == reference_table(), (
        "docs/server.md's metrics table is out of date: replace it with the output of "
        "`python -c 'from paohuzi.server.metrics import reference_table; print(reference_table())'`"
    )


def test_every_metric_has_a_note_and_every_note_a_metric() -> None:
    scraped = {n for n in _exported() if not n.endswith(("_bucket", "_sum", "_count"))}
    scraped |= {n[: -len("_bucket")] for n in _exported() if n.endswith("_bucket")}
    assert set(NOTES) == scraped


@promtool
def test_the_alert_rules_pass_promtool_and_their_unit_tests() -> None:
    check = subprocess.run(["promtool", "check", "rules", "paohuzi-rules.yml"], cwd=PROMETHEUS, capture_output=True,
                           text=True)
    assert check.returncode == 0 and "SUCCESS: 8 rules found" in check.stdout, check.stdout + check.stderr
    unit = subprocess.run(["promtool", "test", "rules", "paohuzi-rules.test.yml"], cwd=PROMETHEUS,
                          capture_output=True, text=True)
    assert unit.returncode == 0 and "SUCCESS" in unit.stdout, unit.stdout + unit.stderr
    config = subprocess.run(["promtool", "check", "config", "prometheus.yml"], cwd=PROMETHEUS, capture_output=True,
                            text=True)
    assert config.returncode == 0, config.stdout + config.stderr


def test_the_rules_name_only_exported_metrics() -> None:
    text = (PROMETHEUS / "paohuzi-rules.yml").read_text()
    exprs = re.findall(r"^\s+expr: (.+)$", text, re.M)
    assert len(exprs) == 8
    used = set().union(*(_named(e) for e in exprs))
    assert used and used <= _exported(), used - _exported()


def test_the_dashboard_has_grafanas_shape_and_exported_metrics() -> None:
    dash: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert {"title", "uid", "schemaVersion", "panels", "templating", "time"} <= set(dash)
    assert isinstance(dash["schemaVersion"], int) and dash["schemaVersion"] >= 36
    assert re.fullmatch(r"[a-zA-Z0-9_-]{1,40}", dash["uid"])
    assert [v["name"] for v in dash["templating"]["list"]] == ["datasource"]
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)) == 16
    used: set[str] = set()
    cells: set[tuple[int, int]] = set()
    for panel in dash["panels"]:
        assert panel["type"] in ("stat", "timeseries") and panel["title"]
        box = panel["gridPos"]
        assert set(box) == {"x", "y", "w", "h"} and box["x"] + box["w"] <= 24
        area = {(x, y) for x in range(box["x"], box["x"] + box["w"]) for y in range(box["y"], box["y"] + box["h"])}
        assert not area & cells, f"panel {panel['title']!r} overlaps another"
        cells |= area
        refs = [t["refId"] for t in panel["targets"]]
        assert refs and len(refs) == len(set(refs))
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}" and target["expr"]
            used |= _named(target["expr"])
    assert used <= _exported(), used - _exported()
    assert {"paohuzi_players_online", "paohuzi_action_seconds_bucket", "paohuzi_lease_changes_total"} <= used
