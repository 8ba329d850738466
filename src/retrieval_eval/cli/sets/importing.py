"""``reval sets import-beir`` and ``reval sets import-trec``: judgments in, a set file out.

Both keep every grade and every "judged not relevant" (the rules are in
``retrieval_eval.questions.judged``) and share their options and their one-line summary.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from retrieval_eval.questions.judged import JudgedSet


def _import_options(command: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--out",
            required=True,
            type=click.Path(dir_okay=False, path_type=Path),
            help="Set file to write; the format follows the suffix (.yaml, .json, .jsonl, + .gz).",
        ),
        click.option("--name", help="Set name (default: from the input's name)."),
        click.option(
            "--rel-level",
            "relevance_level",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            metavar="N",
            help="Grade from which a document is relevant (written as the set's "
            "relevance_level), as trec_eval's -l.",
        ),
        click.option(
            "--skip-no-relevant",
            is_flag=True,
            help="Leave out topics none of whose judged documents is relevant (trec_eval and "
            "BEIR score them 0; by default they are questions that expect nothing).",
        ),
        click.option(
            "--corpus",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help="Corpus JSONL the judgments are on (a BEIR dataset's corpus.jsonl): record "
            "the digest of each judged document's text, so `reval sets lint --corpus` can "
            "tell when a document changed since.",
        ),
        click.option("--force", is_flag=True, help="Overwrite --out if it exists."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _check_out(out: Path, force: bool) -> None:
    from retrieval_eval.errors import InputError
    from retrieval_eval.questions.formats import set_format

    if set_format(out) is None:
        raise InputError(f"--out {out}: use a .yaml, .yml, .json or .jsonl file (optionally .gz)")
    if out.exists() and not force:
        raise InputError(f"--out {out} exists; pass --force to overwrite it")


def _write(js: JudgedSet, out: Path, origin: str, corpus: Path | None) -> None:
    from retrieval_eval.questions.corpus import read_corpus
    from retrieval_eval.questions.judged import with_digests, write_judged_set
    from retrieval_eval.report.plural import plural
    from retrieval_eval.report.safe_text import visible

    missing = 0
    if corpus is not None:
        js, missing = with_digests(js, read_corpus(corpus))
    write_judged_set(js, out)
    counts = f"{js.relevant} relevant"
    if js.not_relevant:
        counts += f", {js.not_relevant} judged not relevant"
    questions = plural(len(js), "question")
    line = f"imported {questions} ({counts}) from {origin} into {out} as set {js.name!r}"
    notes = []
    if js.nothing_relevant:
        notes.append(f"{plural(js.nothing_relevant, 'question')} with nothing relevant")
    if js.skipped_no_relevant:
        topics = plural(js.skipped_no_relevant, "topic")
        notes.append(f"{topics} with nothing relevant left out")
    if js.unjudged_topics:
        notes.append(f"{plural(js.unjudged_topics, 'topic')} without judgments left out")
    if corpus is not None:
        digested = sum(len(d) for d in js.digests.values())
        notes.append(f"{plural(digested, 'document digest')} recorded from {corpus}")
        if missing:
            notes.append(f"{plural(missing, 'judgment')} on documents not in {corpus}")
    grades = "graded " + "/".join(map(str, js.grades)) if js.graded else "binary"
    notes.append(f"{grades}; forms are UNLABELLED")
    click.echo(visible(f"{line}; " + "; ".join(notes)))


@click.command("import-beir", short_help="Turn a BEIR dataset split into a set file.")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--split", default="test", show_default=True, help="qrels/<SPLIT>.tsv to import.")
@_import_options
def import_beir_command(
    directory: Path,
    split: str,
    out: Path,
    name: str | None,
    relevance_level: int,
    skip_no_relevant: bool,
    corpus: Path | None,
    force: bool,
) -> None:
    """Turn a BEIR dataset (queries.jsonl, qrels/SPLIT.tsv; gzip ok) into a set file.

    Every query with a qrels line becomes a question with its grades, zeros kept as
    judged not relevant; one judged only not relevant expects no document. A set whose
    grades are all 1 is written as plain expected_document_ids, any other with
    judgments. BEIR has no MATCH/GAP labels: imported questions are UNLABELLED.
    """
    from retrieval_eval.questions.beir import import_beir_judgments

    _check_out(out, force)
    js = import_beir_judgments(
        directory, split, name, relevance_level=relevance_level, skip_no_relevant=skip_no_relevant
    )
    _write(js, out, f"{directory} split {split}", corpus)


@click.command("import-trec", short_help="Turn TREC qrels and topics into a set file.")
@click.argument("qrels", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--topics",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The topics' text: 'id<TAB>text' lines, or JSONL ('_id', 'text') when named .jsonl.",
)
@_import_options
def import_trec_command(
    qrels: Path,
    topics: Path,
    out: Path,
    name: str | None,
    relevance_level: int,
    skip_no_relevant: bool,
    corpus: Path | None,
    force: bool,
) -> None:
    """Turn TREC qrels (topic iteration document grade; gzip ok) and their topics into a
    set file.

    Every judged topic becomes a question with its grades (negative grades as 0, judged
    not relevant); one judged only not relevant expects no document; topics without
    qrels lines are left out, as trec_eval leaves them out. Imported questions are
    UNLABELLED.
    """
    from retrieval_eval.questions.trec import import_trec_judgments

    _check_out(out, force)
    js = import_trec_judgments(
        qrels, topics, name, relevance_level=relevance_level, skip_no_relevant=skip_no_relevant
    )
    _write(js, out, f"{qrels} and {topics}", corpus)
