"""A model job end to end: ``generate_set`` reads the corpus, samples, asks, checks and
writes the draft; the CLI only parses options and prints the report."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.errors import InfrastructureError, InputError
from retrieval_eval.labelling.llm.budget import Limits, Prices, Spend, estimate_tokens
from retrieval_eval.labelling.llm.cache import ResponseCache
from retrieval_eval.labelling.llm.calls import ModelCalls
from retrieval_eval.labelling.llm.draft_file import write_generated
from retrieval_eval.labelling.llm.generate import (
    GenerateOptions,
    GenerateReport,
    ask_all,
    check_questions,
    read_strata,
    sample_documents,
)
from retrieval_eval.labelling.llm.judge import (
    JudgeOptions,
    JudgeReport,
    Pending,
    grade_all,
    graded_digests,
    grading_prompt,
    read_pending,
    record_grades,
    set_scale,
)
from retrieval_eval.labelling.llm.prompts import PromptTemplate, load_template
from retrieval_eval.questions.corpus import CorpusDocument, read_corpus
from retrieval_eval.questions.lint.overlap import OverlapMeter
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.chat import ChatClient

#: Failure kinds that say the server, not the model, failed.
SERVER_FAILURES = frozenset({"unreachable", "http", "timeout", "malformed"})
#: Tokens a question's answer takes, for the estimate before the job.
COMPLETION_TOKENS_PER_QUESTION = 40


@dataclass(frozen=True, slots=True)
class ModelEndpoint:
    url: str
    api_key: str | None = None
    timeout_s: float = 120.0
    concurrency: int = 4
    #: Where answers are kept (None: no cache).
    cache_dir: Path | None = None
    #: Answer from the cache only, never asking the server (an offline replay).
    cache_only: bool = False
    prices: Prices = field(default_factory=Prices)
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True, slots=True)
class Estimate:
    requests: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


def estimate_job(
    template: PromptTemplate, documents: Sequence[CorpusDocument], options: GenerateOptions,
    prices: Prices,
) -> Estimate:  # fmt: skip
    """Tokens the job will take, estimated from its prompts before anything is sent."""
    prompt = 0
    for d in documents:
        system, user = template.render(
            title=d.title, text=d.text[: options.max_document_chars],
            match_count=options.match, gap_count=options.gap,
        )  # fmt: skip
        prompt += estimate_tokens(system + user)
    completion = len(documents) * (options.match + options.gap) * COMPLETION_TOKENS_PER_QUESTION
    cost = prices.cost(prompt, completion) if prices != Prices() else None
    return Estimate(len(documents), prompt, completion, cost)


@dataclass(frozen=True, slots=True)
class PreparedJob:
    documents: list[CorpusDocument]
    strata: dict[str, int]
    corpus: list[CorpusDocument]
    template: PromptTemplate
    estimate: Estimate


def prepare_generation(
    corpus: Path, options: GenerateOptions, endpoint: ModelEndpoint, prompt: Path | None
) -> PreparedJob:
    template = load_template("generate", prompt)
    documents = list(read_corpus(corpus))
    strata = read_strata(corpus, options.strata) if options.strata else None
    sampled, counts = sample_documents(documents, options.sample, options.seed, strata)
    if not sampled:
        raise InputError(f"{corpus}: no document with text to ask about")
    estimate = estimate_job(template, sampled, options, endpoint.prices)
    return PreparedJob(sampled, counts, documents, template, estimate)


def generate_set(
    job: PreparedJob,
    corpus: Path,
    out: Path,
    options: GenerateOptions,
    endpoint: ModelEndpoint,
    *,
    name: str | None = None,
) -> tuple[GenerateReport, Spend]:
    """Ask, check and write the draft; ``InfrastructureError`` (exit 3) when the server
    failed every document, ``InputError`` when no question came back at all."""
    report = GenerateReport(documents=len(job.documents), strata=job.strata)
    spend = Spend(endpoint.prices, endpoint.limits)
    cache = ResponseCache(endpoint.cache_dir) if endpoint.cache_dir is not None else None

    async def run() -> dict[str, list[tuple[Form, str]]]:
        async with ChatClient(
            endpoint.url, api_key=endpoint.api_key, timeout_s=endpoint.timeout_s,
            concurrency=endpoint.concurrency,
        ) as client:  # fmt: skip
            calls = ModelCalls(client, cache, spend, cache_only=endpoint.cache_only)
            return await ask_all(calls, job.template, job.documents, options, report)

    answers = asyncio.run(run())
    meter = OverlapMeter.from_texts(f"{d.title} {d.text}" for d in job.corpus)
    check_questions(job.documents, answers, meter, options, report)
    if not report.questions:
        failures = ", ".join(f"{n} {kind}" for kind, n in sorted(report.failures.items()))
        server = sum(n for kind, n in report.failures.items() if kind in SERVER_FAILURES)
        why = failures or report.stopped_by or "every question was dropped by the checks"
        message = f"no question generated from {report.documents} documents ({why})"
        if server and server == sum(report.failures.values()):
            raise InfrastructureError(f"{endpoint.url}: {message}")
        raise InputError(message)
    write_generated(report, options, job.template, corpus, out, spend, name=name)
    return report, spend


#: Tokens a grade's answer takes, for the estimate before the job.
COMPLETION_TOKENS_PER_GRADE = 30


@dataclass(frozen=True, slots=True)
class PreparedJudging:
    template: PromptTemplate
    options: JudgeOptions
    #: ``llm:<model>@<prompt digest>``: who the grades are by.
    source: str
    pending: list[Pending]
    documents: dict[str, CorpusDocument]
    estimate: Estimate


def prepare_judging(
    path: Path, corpus: Path, options: JudgeOptions, prices: Prices, prompt: Path | None = None
) -> PreparedJudging:
    """What grading the draft ``path`` will ask, and what it will take, before a call."""
    template = load_template("judge", prompt)
    options = set_scale(path, options)
    source = f"llm:{options.model}@{template.digest}"
    pending = read_pending(path, source)
    documents = {d.id: d for d in read_corpus(corpus)}
    prompt_tokens = sum(
        estimate_tokens("".join(grading_prompt(template, p, documents[p.document_id], options)))
        for p in pending
        if p.document_id in documents
    )
    completion = len(pending) * COMPLETION_TOKENS_PER_GRADE
    cost = prices.cost(prompt_tokens, completion) if prices != Prices() else None
    estimate = Estimate(len(pending), prompt_tokens, completion, cost)
    return PreparedJudging(template, options, source, pending, documents, estimate)


def judge_set(
    job: PreparedJudging, path: Path, endpoint: ModelEndpoint
) -> tuple[JudgeReport, Spend]:
    """Grade every candidate of the draft ``path`` that no person decided and this model
    has not graded (``prepare_judging``), and write the grades into its history; returns
    the report and what was spent. ``InfrastructureError`` when the server failed every
    candidate it was asked about."""
    report = JudgeReport()
    spend = Spend(endpoint.prices, endpoint.limits)
    cache = ResponseCache(endpoint.cache_dir) if endpoint.cache_dir is not None else None

    async def run() -> dict[tuple[str, str], tuple[int, str]]:
        async with ChatClient(
            endpoint.url, api_key=endpoint.api_key, timeout_s=endpoint.timeout_s,
            concurrency=endpoint.concurrency,
        ) as client:  # fmt: skip
            calls = ModelCalls(client, cache, spend, cache_only=endpoint.cache_only)
            return await grade_all(
                calls, job.template, job.pending, job.documents, job.options, report
            )

    grades = asyncio.run(run()) if job.pending else {}
    if grades:
        digests = graded_digests(grades, job.documents)
        record_grades(path, job.source, grades, job.options.relevance_level, digests=digests)
    server = sum(n for kind, n in report.failures.items() if kind in SERVER_FAILURES)
    if job.pending and not grades and server and server == sum(report.failures.values()):
        raise InfrastructureError(f"{endpoint.url}: no candidate graded ({server} calls failed)")
    return report, spend
