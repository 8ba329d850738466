"""The packages whose public names are imported on first use (``lazy_names``): every name
of their tables is the object its module defines, kept once looked up; an unknown name is
an AttributeError naming the package; and importing a package imports none of them."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from retrieval_eval.lazy_names import lazy_getattr

#: Each package and the name of its table of lazily imported names.
TABLES = {
    "retrieval_eval": "_LAZY",
    "retrieval_eval.corpus": "_LAZY",
    "retrieval_eval.questions": "_LAZY",
    "retrieval_eval.questions.lint": "_LAZY",
    "retrieval_eval.records": "_LAZY",
    "retrieval_eval.regression": "_WHERE",
}


@pytest.mark.parametrize("package", sorted(TABLES))
def test_every_name_is_its_modules_object_and_kept(package: str) -> None:
    module = importlib.import_module(package)
    table: dict[str, str] = getattr(module, TABLES[package])
    assert table
    for name, where in table.items():
        value = getattr(module, name)
        assert value is getattr(importlib.import_module(where), name), name
        assert vars(module)[name] is value, name  # a plain attribute from now on


@pytest.mark.parametrize("package", [*sorted(TABLES), "retrieval_eval.retrievers.resolve"])
def test_an_unknown_name_is_an_attribute_error_naming_the_package(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError) as raised:
        module.nope  # noqa: B018
    assert str(raised.value) == f"module '{package}' has no attribute 'nope'"
    assert not hasattr(module, "nope")


def test_resolve_loads_the_resolved_forms_opening_and_listing_on_first_use() -> None:
    resolve = importlib.import_module("retrieval_eval.retrievers.resolve")
    where = {
        "retrieval_eval.retrievers.specs": ("Endpoint", "FusionSpec", "KindSpec", "RetrieverInfo"),
        "retrieval_eval.retrievers.opening": ("open_fusion", "open_plugin", "open_retriever"),
        "retrieval_eval.retrievers.listing": ("list_retrievers",),
    }
    for module, names in where.items():
        for name in names:
            assert getattr(resolve, name) is getattr(importlib.import_module(module), name)


def test_a_name_is_imported_when_first_asked_for_not_before() -> None:
    """In a fresh interpreter: importing the packages loads none of the modules their
    tables point to that nothing else imports; asking for one name loads its module."""
    code = (
        "import json, sys\n"
        "import retrieval_eval, retrieval_eval.regression\n"
        "before = 'retrieval_eval.regression.verdict' in sys.modules\n"
        "retrieval_eval.regression.judge\n"
        "after = 'retrieval_eval.regression.verdict' in sys.modules\n"
        "print(json.dumps([before, after]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [False, True]


def test_the_helper_on_a_namespace_of_its_own() -> None:
    namespace: dict[str, object] = {"__name__": "somewhere"}
    getattr_ = lazy_getattr(namespace, {"dumps": "json"})
    assert getattr_("dumps") is json.dumps and namespace["dumps"] is json.dumps
    with pytest.raises(AttributeError) as raised:
        getattr_("loads")
    assert str(raised.value) == "module 'somewhere' has no attribute 'loads'"
