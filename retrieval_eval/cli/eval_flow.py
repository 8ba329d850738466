"""The steps of ``reval eval`` that are command-line policy, not library: where sets come
from, and checking ``--baseline`` before anything is measured. Judging and saving is the
library's ``judge_and_save``."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.errors import StoreError
from retrieval_eval.questions.model import GoldenQuestionSet


def load_sets(sources: Sequence[str]) -> list[GoldenQuestionSet]:
    """Each source is a set file, a directory of set files, or a registered set name."""
    from retrieval_eval.questions.loading import load_question_sets

    return [qs for source in sources for qs in load_question_sets(source)]


def check_baseline(db_url: str | None, baseline_id: str | None) -> None:
    """An unknown ``--baseline RUN`` is bad input before anything is measured; an
    unreachable store is not an error yet: it is reported after the runs."""
    if baseline_id is None:
        return
    from retrieval_eval.store import RunStore

    try:
        with RunStore.open(db_url) as store:
            store.resolve_id(baseline_id)
    except StoreError:
        return
