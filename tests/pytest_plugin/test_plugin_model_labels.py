"""The fixture gates like ``reval eval --fail-on-regression``: a set whose model labels the
``[labels]`` rule of the plugin's reval.toml does not trust cannot gate (the test fails
with one line, before anything is measured or saved)."""

from __future__ import annotations

import pytest
import yaml
from support.plugin_suite import PASSING, SET

from retrieval_eval.store.store import RunStore

MODEL = "llm:judge@sha256:6e0014eb8577"


def _model_labelled(accepted: dict[str, object] | None) -> dict[str, object]:
    """The suite's set with faq-1's label decided by a model (accepted at ``accepted``)."""
    first = dict(SET["questions"][0])
    labelling: dict[str, object] = {
        "state": "judged",
        "judged_by": MODEL,
        "candidates": [{"document_id": "d1", "relevant": True, "source": MODEL}],
    }
    if accepted is not None:
        labelling["accepted"] = accepted
    first["labelling"] = labelling
    return {**SET, "questions": [first, *SET["questions"][1:]]}


@pytest.mark.parametrize(
    ("accepted", "rule", "why"),
    [
        (None, "[labels]\nmin_kappa = 0.6\nmin_items = 20\n", "not accepted at min_kappa 0.6"),
        ({"kappa": 0.9, "items": 40}, "", "no [labels] rule in"),
        ({"kappa": 0.5, "items": 40}, "[labels]\nmin_kappa = 0.6\n", "not accepted at"),
        ({"kappa": 0.9, "items": 10}, "[labels]\nmin_kappa = 0.6\nmin_items = 20\n", "not "),
    ],
)
def test_untrusted_model_labels_cannot_gate_in_the_fixture(
    suite, pytester: pytest.Pytester, accepted, rule, why
) -> None:
    (pytester.path / "faq.yaml").write_text(yaml.safe_dump(_model_labelled(accepted)))
    if rule:
        (pytester.path / "reval.toml").write_text(rule)
    result = suite(PASSING)
    result.assert_outcomes(failed=1)
    line = next(x for x in result.outlines if x.startswith("reval: set 'faq'"))
    assert "1 questions carry a model's labels (faq-1)" in line and why in line, line
    with RunStore.open(suite.db) as store:
        assert store.list_runs() == []  # refused before measuring: nothing stored


def test_model_labels_the_rule_trusts_gate_in_the_fixture(suite, pytester) -> None:
    (pytester.path / "faq.yaml").write_text(
        yaml.safe_dump(_model_labelled({"kappa": 0.9, "items": 40}))
    )
    (pytester.path / "reval.toml").write_text("[labels]\nmin_kappa = 0.6\nmin_items = 20\n")
    suite(PASSING).assert_outcomes(passed=1)
