"""``reval runs rescore``: stored runs scored again on newer labels, without asking the
retriever, each stored as a new run of its lineage that names its source."""

from __future__ import annotations

from pathlib import Path

import click

from retrieval_eval.cli.options import config_option, db_option, format_option


@click.command("rescore")
@click.argument("run_ids", metavar="RUN...", nargs=-1, required=True)
@click.option(
    "--set",
    "set_source",
    required=True,
    metavar="FILE",
    help="The newer version of the labels (the same questions the runs asked).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the report in --format to FILE; the text report goes to standard output.",
)
@db_option
@config_option
@format_option("text", "json", "junit", "markdown", "html")
def rescore(
    run_ids: tuple[str, ...],
    set_source: str,
    output: Path | None,
    db_url: str | None,
    config_path: Path | None,
    fmt: str,
) -> None:
    """Score the stored rankings of each RUN against the labels in --set and store each
    result as a new run of the same lineage, marked as rescored from its source. The
    rescore of an accepted or pinned run is accepted for the new labels (how: rescored);
    any other is judged against its lineage's baseline, with the lineage's own thresholds
    (reval.toml [gate], as reval eval reads them), and never accepted. Refuses when
    the set adds or drops questions, or a cutoff needs more results than were stored."""
    from retrieval_eval.cli.render import emit_report
    from retrieval_eval.cli.runs.store import open_run_store
    from retrieval_eval.evaluation.rescore import rescore as rescore_run
    from retrieval_eval.questions.loading import load_question_set
    from retrieval_eval.regression.gate_config import load_gate
    from retrieval_eval.regression.unjudged import SetJudgments
    from retrieval_eval.regression.verdict import judge
    from retrieval_eval.regression.verdict_records import RunReport
    from retrieval_eval.store.stored_run import Accepted, HowAccepted, is_accepted

    question_set = load_question_set(set_source)
    gate = load_gate(config_path)
    judged = SetJudgments.of(question_set)
    with open_run_store(db_url) as store:
        sources = [store.get_stored(run_id) for run_id in run_ids]
        # every refusal before any write
        rescored = [(s, rescore_run(s.run, question_set)) for s in sources]
        standing = [(s, r, s.pinned or is_accepted(s.run.state, s.accepted)) for s, r in rescored]
        baselines: dict[str, str] = {}
        reports: list[RunReport] = []
        for source, run, accepted in sorted(standing, key=lambda t: not t[2]):
            origin = (str(source.run.run_id), source.run.set_fingerprint)
            if accepted:
                how = Accepted(HowAccepted.RESCORED, baseline=source.run.run_id)
                run_id = store.save(run, accepted=how, rescored_from=origin)
                baselines[source.lineage] = run_id
                reports.append(RunReport(store.get(run_id), None, accepted=how))
                continue
            baseline = store.find_baseline(run, baselines.get(source.lineage))
            verdict = judge(run, baseline, gate.own(run), judged=judged)
            run_id = store.save(run, verdict, rescored_from=origin)
            reports.append(RunReport(store.get(run_id), verdict))
    emit_report(reports, fmt, output)
