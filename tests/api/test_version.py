"""The version printed by ``reval --version`` and written into reports is the installed
distribution's (it lives in ``version.py`` so that no module imports the package root)."""

from __future__ import annotations

from importlib.metadata import version

import reval_bm25
import reval_dense

import retrieval_eval
from retrieval_eval.cli.main import cli


def test_the_version_is_the_installed_distributions():
    assert retrieval_eval.__version__ == version("retrieval-eval")
    assert reval_bm25.__version__ == version("retrieval-eval-bm25")
    assert reval_dense.__version__ == version("retrieval-eval-dense")


def test_reval_version_prints_it():
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"reval, version {version('retrieval-eval')}"
