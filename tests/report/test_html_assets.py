"""The vendored Chart.js build is exactly the one VENDORED.json records."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

ASSETS = resources.files("retrieval_eval.report.html") / "assets"


def test_vendored_chartjs_matches_its_record():
    record = json.loads((ASSETS / "VENDORED.json").read_text())
    data = (ASSETS / record["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == record["sha256"]
    assert f"Chart.js v{record['version']}".encode() in data[:200]
    assert (ASSETS / "chart.js.LICENSE.md").read_text().startswith("The MIT License")


def test_assets_ship_as_package_data():
    from retrieval_eval.report.html.page import SCRIPTS, STYLES, asset

    for name in (*STYLES, *SCRIPTS):
        assert asset(name).strip()
