"""``reval sets``: list, show, validate, lint, import and describe golden question sets.

Thin wrappers over ``retrieval_eval.questions``; problems are raised as ``InputError``
subclasses, so bad sets exit with code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from retrieval_eval.cli.lazy import Lazy, LazyGroup
from retrieval_eval.cli.options import format_option
from retrieval_eval.errors import PluginError, QuestionSetError

if TYPE_CHECKING:
    from retrieval_eval.questions.model import GoldenQuestionSet
    from retrieval_eval.questions.problems import Problem


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))  # JSON escapes controls


def _say(text: str) -> None:
    """One line for the terminal: control characters from set files shown as escapes."""
    from retrieval_eval.report.safe_text import visible

    click.echo(visible(text))


def _table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        _say("  ".join(cells).rstrip())


@click.group(
    "sets",
    cls=LazyGroup,
    lazy={
        "lint": Lazy(
            "retrieval_eval.cli.sets.lint:lint_command",
            "Find wrong forms, duplicates and missing targets in a set.",
        ),
        "draft": Lazy(
            "retrieval_eval.cli.sets.draft:draft_command",
            "Draft a set by pooling retrievers' top documents.",
        ),
        "generate": Lazy(
            "retrieval_eval.cli.sets.generate:generate_command",
            "Draft questions about sampled documents with a model.",
        ),
        "judge": Lazy(
            "retrieval_eval.cli.sets.judge:judge_command",
            "Judge a drafted set in the viewer (prints its URL).",
        ),
        "import-beir": Lazy(
            "retrieval_eval.cli.sets.importing:import_beir_command",
            "Turn a BEIR dataset split into a set file.",
        ),
        "import-trec": Lazy(
            "retrieval_eval.cli.sets.importing:import_trec_command",
            "Turn TREC qrels and topics into a set file.",
        ),
        "agreement": Lazy(
            "retrieval_eval.cli.sets.agreement:agreement_command",
            "Cohen's kappa between two judges of a set.",
        ),
    },
)
def sets() -> None:
    """Golden question sets: files (YAML, JSON, JSONL) and provider plugins."""


@sets.command("list", short_help="List the sets that installed providers offer.")
@format_option("text", "json")
def list_command(fmt: str) -> None:
    """List the sets offered by installed providers (name, provider, questions, source).

    Set files need no registration: pass their path wherever a set name is accepted.
    """
    from retrieval_eval.questions.registry import QuestionSetRegistry

    listings, failures = QuestionSetRegistry().inventory()
    if fmt == "json":
        _echo_json(
            {
                "sets": [
                    {
                        "name": item.info.name,
                        "provider": item.info.provider,
                        "source": item.info.source,
                        "questions": item.questions,
                        "fingerprint": item.fingerprint,
                        "error": item.error,
                    }
                    for item in listings
                ],
                "failed_providers": [str(f) for f in failures],
            }
        )
    elif listings:
        rows = [["NAME", "PROVIDER", "QUESTIONS", "SOURCE"]]
        for item in listings:
            count = str(item.questions) if item.error is None else "error"
            rows.append([item.info.name, item.info.provider, count, item.info.source])
        _table(rows)
    else:
        _say("no registered question sets (set files need no registration)")
    broken = [f"{i.info.provider}:{i.info.name}: {i.error}" for i in listings if i.error]
    broken += [str(f) for f in failures]
    if broken:
        raise PluginError("; ".join(broken))


@sets.command("show", short_help="Show a set: counts by form and hard class, fingerprint.")
@click.argument("source")
@format_option("text", "json")
def show_command(source: str, fmt: str) -> None:
    """Show a set (file, directory or name): counts by form and hard class, no-answer
    questions and the label fingerprint."""
    from retrieval_eval.questions.loading import load_question_sets
    from retrieval_eval.questions.summary import summarize_set

    summaries = [summarize_set(qs) for qs in load_question_sets(source)]
    if fmt == "json":
        _echo_json({"sets": [s.to_dict() for s in summaries]})
        return
    for number, s in enumerate(summaries):
        if number:
            click.echo()
        _say(f"{s.name}: {s.questions} questions, {s.expected_document_ids} expected ids")
        if s.description:
            _say(f"  description:  {s.description}")
        _say(f"  source:       {s.source}")
        _say(f"  fingerprint:  {s.fingerprint}")
        forms = ", ".join(f"{form} {count}" for form, count in s.by_form.items())
        _say(f"  by form:      {forms}")
        classes = ", ".join(f"{name} {count}" for name, count in s.by_hard_class.items())
        _say(f"  hard classes: {classes}")
        ids = ", ".join(s.no_answer) if s.no_answer else "none"
        _say(f"  no answer:    {len(s.no_answer)} ({ids})")


@sets.command("validate", short_help="Check sets; report every problem (file, line, question).")
@click.argument("sources", nargs=-1, required=True)
@click.option(
    "--corpus",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Corpus JSONL (BEIR style, '_id' per line; .gz ok): report expected ids not in it.",
)
@format_option("text", "json")
def validate_command(sources: tuple[str, ...], corpus: Path | None, fmt: str) -> None:
    """Check set files, directories or names; report every problem with file, line and
    question id. Exit code 2 when anything is wrong."""
    from retrieval_eval.questions.corpus import read_corpus_ids
    from retrieval_eval.questions.validation import validate_source

    ids = read_corpus_ids(corpus) if corpus is not None else None
    results = [r for s in sources for r in validate_source(s, corpus=ids, corpus_name=str(corpus))]
    beyond = {r.source: _beyond_contract(r.source, r.question_set) for r in results}
    problems = [p for r in results for p in (*r.problems, *beyond[r.source])]
    if fmt == "json":
        _echo_json(
            {
                "valid": not problems,
                "sets": [
                    {
                        "source": r.source,
                        "name": r.question_set.name if r.question_set else None,
                        "questions": len(r.question_set) if r.question_set else None,
                        "fingerprint": r.question_set.fingerprint if r.question_set else None,
                        "problems": [p.to_dict() for p in (*r.problems, *beyond[r.source])],
                        "warnings": [],
                    }
                    for r in results
                ],
            }
        )
    else:
        for r in results:
            for p in (*r.problems, *beyond[r.source]):
                _say(str(p))
            if r.question_set is not None and not beyond[r.source]:
                qs = r.question_set
                _say(f"{r.source}: ok: set {qs.name!r}, {len(qs)} questions")
    if problems:
        bad = sum(1 for r in results if r.problems or beyond[r.source])
        noun = "problem" if len(problems) == 1 else "problems"
        raise QuestionSetError(f"{len(problems)} {noun} in {bad} of {len(results)} sets")


def _beyond_contract(source: str, qs: GoldenQuestionSet | None) -> list[Problem]:
    """Questions and expected ids beyond the retriever contract's limits: every
    conforming retriever rejects such a question, and no answer can carry such an id,
    so they could only ever be errors or misses."""
    from retrieval_eval.questions.problems import Problem
    from retrieval_eval.retrievers.contract.limits import (
        MAX_ID_BYTES,
        MAX_QUESTION_BYTES,
        long_questions,
    )

    if qs is None:
        return []
    found = [
        Problem(
            source,
            None,
            f"question is {size:,} bytes, over the retriever contract's "
            f"{MAX_QUESTION_BYTES:,}-byte limit: every conforming retriever rejects it",
            question_id=qid,
        )
        for qid, size in long_questions((q.id, q.question) for q in qs.questions)
    ]
    for q in qs.questions:
        for doc in q.expected_document_ids:
            size = len(doc.encode("utf-8", "surrogatepass"))
            if size > MAX_ID_BYTES:
                found.append(
                    Problem(
                        source,
                        None,
                        f"expected document id of {size:,} bytes, "
                        f"over the retriever contract's {MAX_ID_BYTES:,}-byte "
                        "limit: no retriever can return it",
                        question_id=q.id,
                    )
                )
    return found


@sets.command("schema", short_help="Print the JSON Schema of the set file format.")
@click.option(
    "--part",
    type=click.Choice(["document", "question", "header"]),
    default="document",
    show_default=True,
    help="document: a YAML/JSON set file; question: one JSONL line; header: the JSONL header.",
)
def schema_command(part: str) -> None:
    """Print the JSON Schema of the set format (for editors that validate while you label)."""
    from retrieval_eval.questions import schema

    build = {
        "document": schema.question_set_schema,
        "question": schema.question_schema,
        "header": schema.header_schema,
    }[part]
    _echo_json(build())
