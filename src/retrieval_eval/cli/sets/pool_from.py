"""``--pool-from RUN`` and ``--depth``: stored runs as a pool source for ``sets draft``
and ``sets judge`` (the unjudged documents their rankings brought up)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

if TYPE_CHECKING:
    from retrieval_eval.labelling.run_pool import RunPools
    from retrieval_eval.records.run import RunResult

F = TypeVar("F", bound=Callable[..., object])


def pool_from_option(function: F) -> F:
    return click.option(
        "--pool-from",
        "pool_from",
        multiple=True,
        metavar="RUN",
        help="Offer the unjudged documents in the top --depth of this stored run's "
        "rankings (id or unique prefix, from --db); repeat. Questions whose hit flipped "
        "between the runs come first.",
    )(function)


def load_runs(db_url: str | None, run_ids: Sequence[str]) -> list[RunResult]:
    """The stored runs named, with their rankings (an unknown id is an InputError)."""
    from retrieval_eval.store.store import RunStore

    with RunStore.open(db_url) as store:
        return [store.get(run_id) for run_id in run_ids]


def add_run_candidates(
    set_file: Path, corpus: Path, db_url: str | None, run_ids: Sequence[str], depth: int
) -> RunPools:
    """Extend ``set_file`` with the runs' unjudged candidates and say what was added."""
    from retrieval_eval.labelling.run_pool import extend_from_runs

    runs = load_runs(db_url, run_ids)
    pools, summary = extend_from_runs(set_file, corpus, runs, depth)
    click.echo(
        f"{summary.path}: {summary.new_candidates} unjudged documents from the top {depth} "
        f"of {len(runs)} stored run(s); {len(pools.flipped)} question(s) flipped between "
        f"them (shown first); {summary.to_review} of {summary.questions} questions to judge"
    )
    return pools
