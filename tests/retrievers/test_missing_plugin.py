"""A spec naming a reference plugin that is not installed says which distribution to
install, as the hints of the extras do. (The installed plugins are read from the entry
points; here the scan answers as on a machine with the core alone, where ``reval-ir-bm25``
is absent.)"""

from __future__ import annotations

import pytest

from retrieval_eval import plugins
from retrieval_eval.errors import UnknownNameError
from retrieval_eval.retrievers.resolve import resolve


@pytest.fixture
def core_alone(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)  # no reval.toml
    monkeypatch.setattr(plugins, "scan_plugins", lambda namespace: [])


@pytest.mark.parametrize("name", ["bm25", "dense"])
def test_a_reference_plugin_not_installed_names_its_distribution(core_alone, name):
    with pytest.raises(UnknownNameError) as caught:
        resolve(f"{name}:./index")
    assert str(caught.value) == (
        f"unknown retriever '{name}:./index' ({name} is the reference plugin of the "
        f"reval-ir-{name} distribution, not installed here: pip install reval-ir-{name}, "
        f"or from a reval checkout: pip install -e ./plugins/{name})"
    )


def test_another_unknown_plugin_gets_no_distribution(core_alone):
    with pytest.raises(UnknownNameError) as caught:
        resolve("splade:./index")
    assert "pip install" not in str(caught.value)
