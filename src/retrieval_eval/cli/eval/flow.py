"""The steps of ``reval eval`` that are command-line policy, not library: where sets come
from, opening the store (and checking ``--baseline``) before anything is measured, when a
run stops asking, whether the sets' model labels may gate, evaluating with progress shown,
and the asked measures' means. Judging
and saving is the library's ``judge_and_save``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from retrieval_eval.errors import StoreError
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.run import RunResult

if TYPE_CHECKING:
    from retrieval_eval.evaluation.coordinator import EvalOptions
    from retrieval_eval.scoring.measures import Measure
    from retrieval_eval.store.store import RunStore


def load_sets(sources: Sequence[str]) -> list[GoldenQuestionSet]:
    """Each source is a set file, a directory of set files, or a registered set name."""
    from retrieval_eval.questions.loading import load_question_sets

    return [qs for source in sources for qs in load_question_sets(source)]


def refuse_untrusted_labels(
    question_sets: Sequence[GoldenQuestionSet], config_path: Path | None, *, gating: bool
) -> None:
    """A gate takes no model labels the team's ``[labels]`` rule does not trust (exit 2,
    before measuring); a report that gates nothing may show any labels."""
    if not gating:
        return
    from retrieval_eval.labelling.llm.trust import refuse_untrusted_labels as refuse
    from retrieval_eval.retrievers.config_file import default_config_path

    refuse(question_sets, config_path or default_config_path())


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


def with_measures(
    runs: list[RunResult],
    question_sets: list[GoldenQuestionSet],
    measures: tuple[Measure, ...],
    *,
    trec_means: bool,
) -> list[RunResult]:
    """Each run with the asked measures' means, against the grades of its set."""
    from dataclasses import replace

    from retrieval_eval.scoring.measures import run_measures

    by_fingerprint = {(qs.name, qs.fingerprint): qs for qs in question_sets}
    done = []
    for run in runs:
        qs = by_fingerprint[run.set_name, run.set_fingerprint]
        means = run_measures(
            run.questions, qs.questions, measures, level=qs.relevance_level, trec_means=trec_means
        )
        convention = "trec_eval" if trec_means else "reval"
        done.append(replace(run, measures=means, measure_convention=convention))
    return done


def evaluate_runs(
    question_sets: list[GoldenQuestionSet],
    specs: list[str],
    options: EvalOptions,
    fmt: str,
    config_path: Path | None,
    token: str | None,
) -> tuple[list[RunResult], bool]:
    """The runs, and whether Ctrl-C cut them short (then they hold what was measured)."""
    from retrieval_eval.cli.progress import RichProgress, wants_progress
    from retrieval_eval.evaluation.coordinator import EvaluationInterrupted, evaluate

    def run(progress: RichProgress | None) -> list[RunResult]:
        return evaluate(
            question_sets, specs, options, progress=progress, config_path=config_path, token=token
        )

    try:
        if not wants_progress(fmt):
            return run(None), False
        with RichProgress() as progress:
            return run(progress), False
    except EvaluationInterrupted as e:
        if not e.runs:
            raise
        return e.runs, True
