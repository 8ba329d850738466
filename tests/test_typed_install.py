"""A user's type checker sees reval's types after the README's install.

setuptools' editable install of a flat layout goes through an import hook that mypy
cannot follow, so a user's script saw ``retrieval_eval`` as missing and every public name
as ``Any``. The src/ layout makes the editable install a plain path entry. Checked the way
a user meets it: mypy run on a script in a directory outside the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """\
import retrieval_eval

reveal_type(retrieval_eval.evaluate)
retrieval_eval.evaluate("not a list of sets", [])
"""


def test_mypy_outside_the_checkout_sees_typed_public_names(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extra")
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
         script.name],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    out = done.stdout
    assert "Cannot find implementation or library stub" not in out, out
    revealed = next(line for line in out.splitlines() if "Revealed type" in line)
    sets = "sets: typing.Sequence[retrieval_eval.questions.model.GoldenQuestionSet]"
    assert f'"def ({sets}' in revealed
    assert "-> list[retrieval_eval.records.run.RunResult]" in revealed
    # The wrong call is caught, which an Any-typed name would let through.
    assert 'user_script.py:4: error: Argument 1 to "evaluate" has incompatible type' in out, out
    assert done.returncode == 1
