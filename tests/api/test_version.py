"""The version printed by ``reval --version`` and written into reports is the installed
distribution's, and that distribution is ours: ``reval-ir`` (``retrieval-eval`` on PyPI is
another project with an import package of the same name). The version is written once, in
``version.py``; the build reads it from there."""

from __future__ import annotations

import tomllib
from importlib.metadata import distribution, packages_distributions, version

import reval_bm25
import reval_dense
from support.env import REPO_ROOT

import retrieval_eval
from retrieval_eval.cli.main import cli
from retrieval_eval.version import DISTRIBUTION, PLUGIN_DISTRIBUTIONS


def test_the_version_is_the_installed_distributions():
    assert retrieval_eval.__version__ == version(DISTRIBUTION)
    assert reval_bm25.__version__ == version(PLUGIN_DISTRIBUTIONS["bm25"])
    assert reval_dense.__version__ == version(PLUGIN_DISTRIBUTIONS["dense"])


def test_the_import_packages_come_from_our_distributions():
    owners = packages_distributions()
    assert DISTRIBUTION in owners["retrieval_eval"]
    assert "retrieval-eval" not in owners["retrieval_eval"]  # another project, same import name
    # Sets: an editable install's build metadata (NAME.egg-info beside the sources) can be
    # found as well as its dist-info, once the sources' folder is on sys.path; the same
    # distribution twice, never another one.
    assert set(owners["reval_bm25"]) == {PLUGIN_DISTRIBUTIONS["bm25"]}
    assert set(owners["reval_dense"]) == {PLUGIN_DISTRIBUTIONS["dense"]}
    scripts = distribution(DISTRIBUTION).entry_points.select(group="console_scripts")
    assert [(s.name, s.value) for s in scripts] == [("reval", "retrieval_eval.cli.main:main")]


def test_each_pyproject_reads_its_version_from_the_package():
    """No second copy of the version: every pyproject declares it dynamic, read from the
    package's version module."""
    sources = {
        "pyproject.toml": (DISTRIBUTION, "retrieval_eval.version.__version__"),
        **{
            f"plugins/{name}/pyproject.toml": (dist, f"reval_{name}.version.__version__")
            for name, dist in PLUGIN_DISTRIBUTIONS.items()
        },
    }
    for path, (name, attr) in sources.items():
        data = tomllib.loads((REPO_ROOT / path).read_text(encoding="utf-8"))
        assert data["project"]["name"] == name, path
        assert "version" not in data["project"], path
        assert data["project"]["dynamic"] == ["version"], path
        assert data["tool"]["setuptools"]["dynamic"]["version"] == {"attr": attr}, path


def test_reval_version_names_the_distribution():
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"reval, version {version('reval-ir')} (distribution reval-ir)"
