"""``reval sets generate``: draft questions about sampled documents with a model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from retrieval_eval.cli.extras import require_extra
from retrieval_eval.cli.sets.model_options import model_endpoint, model_options, tokens_line


@click.command("generate", short_help="Draft questions about sampled documents with a model.")
@click.option(
    "--corpus",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The corpus (BEIR/JSONL, as the plugins read it).",
)
@click.option(
    "--llm-url",
    required=True,
    metavar="URL",
    help="An OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama).",
)
@click.option("--model", required=True, help="The model to ask.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The draft set to write (YAML).",
)
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Documents to ask about.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sample.")
@click.option(
    "--strata",
    metavar="FIELD",
    default=None,
    help="Sample evenly across the values of this corpus field (metadata.KEY "
    "for a BEIR metadata key).",
)
@click.option(
    "--match",
    "match",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="MATCH questions asked for per document.",
)
@click.option(
    "--gap",
    "gap",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="GAP questions asked for per document.",
)
@click.option(
    "--on-form-mismatch",
    type=click.Choice(["relabel", "drop"]),
    default="relabel",
    show_default=True,
    help="A question whose vocabulary overlap contradicts its form: relabel or drop it.",
)
@click.option(
    "--prompt",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Your own prompt template (the default is documented).",
)
@click.option(
    "--temperature",
    type=click.FloatRange(0, 2),
    default=0.0,
    show_default=True,
    help="Sampling temperature sent to the model (0: its most likely answer).",
)
@click.option(
    "--max-document-chars",
    type=click.IntRange(min=100),
    default=4000,
    show_default=True,
    help="Document text sent with the prompt, at most.",
)
@model_options
@click.option("--name", default=None, help="The set's name (default: the file's stem).")
def generate_command(
    corpus: Path, llm_url: str, model: str, out: Path, sample: int, seed: int,
    strata: str | None, match: int, gap: int, on_form_mismatch: str, prompt: Path | None,
    temperature: float, max_document_chars: int, name: str | None, **endpoint_options: Any,
) -> None:  # fmt: skip
    """Ask a model for MATCH and GAP questions about sampled documents of the corpus and
    write them as a draft set: every question's form checked against its vocabulary
    overlap, near-duplicates dropped, its source document its first expected document.
    A draft is never evaluated until a person judged it (reval sets judge).

    Every answer is cached under $REVAL_HOME/llm-cache by the content of its request: a
    second run sends nothing.
    """
    require_extra("lint", "reval sets generate")  # the overlap measure and its stemmer
    from retrieval_eval.labelling.llm.generate import GenerateOptions
    from retrieval_eval.labelling.llm.job import generate_set, prepare_generation

    endpoint = model_endpoint(llm_url, model, endpoint_options)
    options = GenerateOptions(
        model, sample, seed, match, gap, strata, max_document_chars, temperature,
        on_mismatch=on_form_mismatch,
    )  # fmt: skip
    job = prepare_generation(corpus, options, endpoint, prompt)
    click.echo(
        f"asking {model} about {job.estimate.requests} documents: {tokens_line(job.estimate)}"
    )
    report, spend = generate_set(job, corpus, out, options, endpoint, name=name)
    click.echo(f"wrote {out}: {len(report.questions)} questions from {report.documents} documents")
    click.echo(
        f"form check: {report.relabelled} relabelled, {report.dropped_mismatch} dropped; "
        f"{report.dropped_duplicates} near-duplicates dropped"
    )
    if report.failures:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(report.failures.items()))
        click.echo(f"documents without a question: {kinds}")
    if report.stopped_by:
        click.echo(f"stopped: {report.stopped_by}; {report.not_asked} documents not asked")
    click.echo(spend.summary())
    click.echo(f"next: judge them with reval sets judge {out} --corpus {corpus}")
