"""``reval eval --fail-on-regression`` refuses a set whose model labels the team's
``[labels]`` rule does not trust (``labelling.llm.trust``): exit 2, before measuring."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.questions.model import GoldenQuestionSet


def refuse_untrusted_labels(
    question_sets: Sequence[GoldenQuestionSet], config_path: Path | None, *, gating: bool
) -> None:
    """``InputError`` naming the first set whose model labels may not gate (only when
    ``gating``: a report without a gate may show any labels)."""
    if not gating:
        return
    from retrieval_eval.labelling.llm.accept import AcceptRule
    from retrieval_eval.labelling.llm.trust import untrusted_model_labels
    from retrieval_eval.questions.digests_file import set_path
    from retrieval_eval.retrievers.config import load_toml
    from retrieval_eval.retrievers.config_file import default_config_path

    config = config_path or default_config_path()
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
