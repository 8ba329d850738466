"""Whether a set's model labels may gate CI: only as far as the team's rule trusts them.

``sets agreement --accept`` writes a model's decisions into a set only when its agreement
with a person reaches the ``[labels]`` rule of reval.toml, and records that agreement in
``labelling.accepted``. A gate checks them again against the rule as it reads now: a
question with a model's decision (a candidate whose ``source`` is ``llm:...``, or a
``judged_by`` model) gates only when its ``accepted`` kappa and items reach the rule. No
rule, no ``accepted`` note (a file edited by hand), or a rule the team has since raised:
the set's model labels are drafts, and every gate refuses it (``reval eval
--fail-on-regression``, the pytest plugin's fixture).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.llm.accept import AcceptRule
from retrieval_eval.questions.formats import read_text
from retrieval_eval.questions.labelling import LABELLING_KEY, MODEL_PREFIX
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.reading import read_set_file


def model_labelled(question: Any) -> bool:
    """Whether any of the question's decisions is a model's."""
    labelling = question.get(LABELLING_KEY) if isinstance(question, dict) else None
    if not isinstance(labelling, dict):
        return False
    if str(labelling.get("judged_by") or "").startswith(MODEL_PREFIX):
        return True
    return any(
        isinstance(c, dict)
        and c.get("relevant") is not None
        and str(c.get("source") or "").startswith(MODEL_PREFIX)
        for c in labelling.get("candidates") or []
    )


def trusted(question: Any, rule: AcceptRule | None) -> bool:
    """Whether the agreement the question's model labels were accepted on meets ``rule``."""
    accepted: Any = (question.get(LABELLING_KEY) or {}).get("accepted")
    if rule is None or not isinstance(accepted, dict):
        return False
    kappa: Any = accepted.get("kappa")
    items: Any = accepted.get("items")
    if not (_number(kappa) and _number(items)):
        return False
    return float(kappa) >= rule.min_kappa and float(items) >= rule.min_items


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def untrusted_model_labels(path: Path, rule: AcceptRule | None) -> list[str]:
    """Ids of the questions of the set file ``path`` (any set format: the labelling
    commands write YAML, but a set may be converted) whose model labels ``rule`` does not
    trust."""
    if MODEL_PREFIX not in read_text(path, None):
        return []  # the common case: no model decided anything here
    questions = read_set_file(path).questions
    return [
        str(q.get("id"))
        for q in (questions if isinstance(questions, list) else [])
        if isinstance(q, dict) and model_labelled(q) and not trusted(q, rule)
    ]


def refuse_untrusted_labels(question_sets: Sequence[GoldenQuestionSet], config: Path) -> None:
    """``InputError`` naming the first set whose model labels may not gate under the
    ``[labels]`` rule of ``config`` (a missing file: no rule). Every gate calls it before
    measuring: ``reval eval --fail-on-regression`` and the pytest plugin's fixture."""
    from retrieval_eval.questions.digests_file import set_path
    from retrieval_eval.retrievers.config import load_toml

    rule = AcceptRule.from_config(load_toml(config), config) if config.is_file() else None
    for qs in question_sets:
        path = set_path(qs.source)
        ids = untrusted_model_labels(path, rule) if path is not None else []
        if not ids:
            continue
        shown = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")
        why = (
            f"no [labels] rule in {config}" if rule is None
            else f"not accepted at min_kappa {rule.min_kappa:g} on {rule.min_items} items"
        )  # fmt: skip
        raise InputError(
            f"set {qs.name!r} ({path}): {len(ids)} questions carry a model's labels ({shown}) "
            f"{why}: they are drafts and cannot gate; reval sets agreement --accept decides"
        )
