"""The documentation site builds with ``mkdocs build --strict`` (as .ci/run does): every
page of the nav exists, every link and anchor between pages resolves, and every API name
mkdocstrings renders is found. A real subprocess, into a temporary directory."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from support.env import REPO_ROOT, require

from .doc_blocks import nav_pages

#: What ``pip install -e '.[docs]'`` installs (import names).
SITE_PACKAGES = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # the parent package is missing
        return False


def built_page(site: Path, page: str) -> Path:
    """Where MkDocs writes ``page`` with directory URLs (``a/b.md`` -> ``a/b/index.html``)."""
    stem = page.removesuffix(".md")
    if stem == "index":
        return site / "index.html"
    return site / stem / "index.html"


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    missing = [name for name in SITE_PACKAGES if not _installed(name)]
    require(not missing, f"{', '.join(missing)} not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO_ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    unbuilt = [page for page in nav_pages() if not built_page(site, page).is_file()]
    assert not unbuilt, f"pages in the nav that were not built: {unbuilt}"
    api = built_page(site, "reference/api.md").read_text(encoding="utf-8")
    assert 'id="retrieval_eval.evaluate"' in api  # mkdocstrings rendered the docstrings
    # No page loads a script, stylesheet, font or image from elsewhere (theme.font: false,
    # no plugin that fetches): the site works offline. Links to other sites are fine.
    remote = re.compile(r'<(?:script|link|img)\b[^>]*\b(?:src|href)="(?:https?:)?//')
    loading = [p for p in site.rglob("*.html") if remote.search(p.read_text("utf-8"))]
    assert not loading, loading
