"""``reval runs export-baseline``: write an accepted run to a baseline file committed
beside the set, for ``reval eval --baseline-file`` (a CI job with no database)."""

from __future__ import annotations

from pathlib import Path

import click

from retrieval_eval.cli.options import db_option


@click.command("export-baseline")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The baseline file to write (replaced atomically; same run, same bytes).",
)
@db_option
def export_baseline(run_id: str, out: Path, db_url: str | None) -> None:
    """Write RUN, an accepted baseline, to FILE: its rankings, hits and judgments per
    question, its figures and measures, fingerprints and lineage, and how it was
    accepted. Commit FILE beside the set
    and judge with `reval eval --baseline-file FILE`: moving the baseline is then a
    reviewed change. A run that is not accepted is refused."""
    from retrieval_eval.atomic import is_infrastructure, write_atomically
    from retrieval_eval.cli.runs.store import open_run_store
    from retrieval_eval.errors import InputError, StoreError
    from retrieval_eval.regression.baseline_file import baseline_document
    from retrieval_eval.store.stored_run import is_accepted

    with open_run_store(db_url) as store:
        stored = store.get_stored(run_id)
    run = stored.run
    if not is_accepted(run.state, stored.accepted):
        kind = "unjudged" if stored.verdict_document is None else "not accepted"
        raise InputError(
            f"run {run.run_id} is {run.state.value} and {kind}: only an accepted run is "
            f"exported as a baseline; accept it first: reval runs accept {run.run_id} "
            "--reason TEXT"
        )
    text = baseline_document(stored)
    try:
        write_atomically(out, text.encode("utf-8"))
    except OSError as e:
        if is_infrastructure(e):
            raise StoreError(f"cannot write {out}: {e.strerror or e}") from e
        raise InputError(f"cannot write {out}: {e.strerror or e}") from e
    click.echo(
        f"wrote baseline {run.run_id} ({run.set_name} × {stored.lineage}, "
        f"{len(run.questions)} questions) to {out}",
        err=True,
    )
