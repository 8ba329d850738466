"""The package root's public names: one table says where each lives, type checkers see
the same names, the API reference documents exactly these, each resolves to the object its
module defines (kept once looked up), and importing the package imports none of them."""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import retrieval_eval

ROOT = Path(__file__).resolve().parent.parent
API_PAGE = ROOT / "docs" / "reference" / "api.md"


def _type_checking_imports() -> dict[str, str]:
    """name -> module of the ``if TYPE_CHECKING:`` imports of the root ``__init__.py``."""
    tree = ast.parse(Path(retrieval_eval.__file__).read_text(encoding="utf-8"))
    (block,) = [
        n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    ]
    return {
        alias.name: node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def test_the_table_the_type_checkers_names_and_all_agree() -> None:
    table = {name: module for module, names in retrieval_eval.PUBLIC.items() for name in names}
    assert len(table) == sum(len(names) for names in retrieval_eval.PUBLIC.values())  # no twice
    assert _type_checking_imports() == table
    assert sorted(retrieval_eval.__all__) == sorted([*table, "__version__"])


def test_the_api_reference_documents_exactly_the_public_names() -> None:
    documented = re.findall(r"^::: retrieval_eval\.(\w+)$", API_PAGE.read_text("utf-8"), re.M)
    assert sorted(documented) == sorted(n for n in retrieval_eval.__all__ if n != "__version__")


@pytest.mark.parametrize("name", sorted(set(retrieval_eval.__all__) - {"__version__"}))
def test_each_name_is_the_object_its_module_defines_and_is_kept(name: str) -> None:
    (module,) = [m for m, names in retrieval_eval.PUBLIC.items() if name in names]
    value = getattr(retrieval_eval, name)
    assert value is getattr(importlib.import_module(module), name)
    assert vars(retrieval_eval)[name] is value  # a plain attribute from now on
    defined_in = getattr(value, "__module__", module)
    assert defined_in == module, f"{name} is defined in {defined_in}, not {module}"


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    with pytest.raises(AttributeError) as raised:
        retrieval_eval.nope  # type: ignore[attr-defined]  # noqa: B018
    assert str(raised.value) == "module 'retrieval_eval' has no attribute 'nope'"
    assert "nope" not in dir(retrieval_eval) and "evaluate" in dir(retrieval_eval)


def test_a_name_is_imported_when_first_asked_for_not_before() -> None:
    """In a fresh interpreter: importing the package loads none of the table's modules;
    asking for one name loads its module."""
    code = (
        "import json, sys\n"
        "import retrieval_eval\n"
        "before = sorted(m for m in retrieval_eval.PUBLIC if m in sys.modules)\n"
        "retrieval_eval.judge_and_save\n"
        "after = 'retrieval_eval.regression.record' in sys.modules\n"
        "print(json.dumps([before, after]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [[], True]
