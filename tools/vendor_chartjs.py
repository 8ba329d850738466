"""Refresh the vendored Chart.js build from its npm package (needs ``npm`` and the registry).

    python tools/vendor_chartjs.py [VERSION]

Packs ``chart.js@VERSION`` with npm, checks the tarball against the registry's published
integrity, and copies ``dist/chart.umd.min.js`` and the licence into
``src/retrieval_eval/report/html/assets/``, recording version and checksums in
``VENDORED.json`` (``tests/report/test_html_assets.py`` checks the file against it).
Building or installing reval never needs this: the file is checked in.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "src" / "retrieval_eval" / "report" / "html" / "assets"
DEFAULT_VERSION = "4.6.1"
FILES = {
    "package/dist/chart.umd.min.js": "chart.umd.min.js",
    "package/LICENSE.md": "chart.js.LICENSE.md",
}


def vendor(version: str) -> dict[str, str]:
    spec = f"chart.js@{version}"
    integrity = subprocess.run(
        ["npm", "view", spec, "dist.integrity"], check=True, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", spec, "--silent"], cwd=tmp, check=True, capture_output=True)
        (tarball,) = Path(tmp).glob("chart.js-*.tgz")
        algorithm, _, expected = integrity.partition("-")
        actual = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
        if actual != expected:
            raise SystemExit(f"{tarball.name}: integrity {actual} != registry's {expected}")
        with tarfile.open(tarball) as archive:
            for member, name in FILES.items():
                data = archive.extractfile(member)
                assert data is not None, member
                (ASSETS / name).write_bytes(data.read())
    record = {
        "package": "chart.js",
        "version": version,
        "tarball_integrity": integrity,
        "file": "chart.umd.min.js",
        "sha256": hashlib.sha256((ASSETS / "chart.umd.min.js").read_bytes()).hexdigest(),
    }
    (ASSETS / "VENDORED.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    print(json.dumps(vendor(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_VERSION), indent=2))
