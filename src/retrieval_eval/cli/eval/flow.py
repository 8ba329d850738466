"""The steps of ``reval eval`` that are command-line policy, not library: where sets come
from, and opening the store (and checking ``--baseline``) before anything is measured.
Judging and saving is the library's ``judge_and_save``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from retrieval_eval.errors import StoreError
from retrieval_eval.questions.model import GoldenQuestionSet

if TYPE_CHECKING:
    from retrieval_eval.store.store import RunStore


def load_sets(sources: Sequence[str]) -> list[GoldenQuestionSet]:
    """Each source is a set file, a directory of set files, or a registered set name."""
    from retrieval_eval.questions.loading import load_question_sets

    return [qs for source in sources for qs in load_question_sets(source)]


def open_store_or_url(db_url: str | None, baseline_id: str | None) -> RunStore | str | None:
    """Open the run store before anything is measured, so that a bad ``--db`` or an
    unknown ``--baseline RUN`` is bad input (exit 2) with nothing lost. An unreachable
    store is not an error yet: its URL is returned, and ``judge_and_save`` reports the
    failure after the measured runs."""
    from retrieval_eval.store.store import RunStore

    try:
        store = RunStore.open(db_url)
    except StoreError:
        return db_url
    try:
        if baseline_id is not None:
            store.resolve_baseline(baseline_id)
    except StoreError:
        store.close()
        return db_url
    except BaseException:
        store.close()
        raise
    return store
