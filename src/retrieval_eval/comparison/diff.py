"""How far a change reaches where nobody has labelled anything: ask two retrievers the
same plain questions and measure how much their rankings differ.

Per question: Jaccard of the top-k distinct documents and rank-biased overlap (see
``overlap``); overall: their means, how many rankings are identical, and the distribution
of RBO in tenths. The questions whose rankings moved most (lowest RBO first) are the ones
worth labelling next. A question either retriever failed on is reported apart, never
counted as a difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from retrieval_eval.comparison.overlap import DEFAULT_RBO_P, jaccard, rbo
from retrieval_eval.errors import InputError
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.records.run import RunResult

if TYPE_CHECKING:  # the coordinator is imported only when retrievers are asked
    from retrieval_eval.evaluation.workers import Progress

DEFAULT_DIFF_K = 10
_SET_SUFFIXES = (".yaml", ".yml", ".json", ".jsonl", ".gz")


@dataclass(frozen=True, slots=True)
class DiffQuestion:
    question_id: str
    question: str
    jaccard: float | None  # None when either retrieval failed
    rbo: float | None
    top_a: tuple[str, ...]
    top_b: tuple[str, ...]
    error_a: str | None = None
    error_b: str | None = None


@dataclass(frozen=True, slots=True)
class OverlapBin:
    """RBO in ``[low, high)`` (the last bin includes 1.0)."""

    low: float
    high: float
    count: int


@dataclass(frozen=True, slots=True)
class Diff:
    retriever_a: str  # variant labels
    retriever_b: str
    k: int
    rbo_p: float
    #: Moved most first (lowest RBO), then failed questions, in input order.
    questions: tuple[DiffQuestion, ...]
    compared: int  # questions both retrievers answered
    failed: int
    identical: int  # same top-k in the same order
    mean_jaccard: float | None
    mean_rbo: float | None
    distribution: tuple[OverlapBin, ...]

    def moved(self, n: int) -> tuple[DiffQuestion, ...]:
        """The ``n`` questions whose rankings differ most (never identical ones)."""
        return tuple(q for q in self.questions if q.rbo is not None and q.rbo < 1.0)[:n]


def read_questions(path: Path) -> GoldenQuestionSet:
    """A set file (its questions, labels ignored) or a text file, one question per line
    (blank lines and lines starting with ``#`` skipped)."""
    if path.suffix.lower() in _SET_SUFFIXES:
        # the set loaders (YAML and the rest) only for a set file
        from retrieval_eval.questions.loading import load_set_file

        return load_set_file(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read questions from {path}: {e}") from e
    texts = [line.strip() for line in lines]
    questions = tuple(
        GoldenQuestion(f"line-{n}", text, Form.UNLABELLED, ())
        for n, text in enumerate(texts, start=1)
        if text and not text.startswith("#")
    )
    if not questions:
        raise InputError(f"{path}: no questions (one per line expected)")
    return GoldenQuestionSet(name=path.stem, questions=questions, source=str(path))


def diff_runs(
    a: RunResult, b: RunResult, texts: dict[str, str], *, k: int = DEFAULT_DIFF_K,
    rbo_p: float = DEFAULT_RBO_P,
) -> Diff:  # fmt: skip
    """The overlap of two runs over the same questions (labels are not looked at)."""
    if k < 1:
        raise InputError(f"invalid --k {k}: it must be >= 1")
    b_by_id = {q.question_id: q for q in b.questions}
    rows = [_row(q, b_by_id.get(q.question_id), texts, k, rbo_p) for q in a.questions]
    scored = [r for r in rows if r.rbo is not None]
    rbos = [r.rbo for r in scored if r.rbo is not None]
    jaccards = [r.jaccard for r in scored if r.jaccard is not None]
    ordered = sorted(scored, key=lambda r: (r.rbo, r.jaccard)) + [r for r in rows if r.rbo is None]
    return Diff(
        retriever_a=a.retriever.variant_label(a.retriever_target),
        retriever_b=b.retriever.variant_label(b.retriever_target),
        k=k,
        rbo_p=rbo_p,
        questions=tuple(ordered),
        compared=len(scored),
        failed=len(rows) - len(scored),
        identical=sum(1 for r in scored if r.top_a == r.top_b),
        mean_jaccard=sum(jaccards) / len(jaccards) if jaccards else None,
        mean_rbo=sum(rbos) / len(rbos) if rbos else None,
        distribution=_bins(rbos),
    )


def _row(
    a: QuestionOutcome, b: QuestionOutcome | None, texts: dict[str, str], k: int, p: float
) -> DiffQuestion:
    top_a = a.ranked_document_ids[:k]
    top_b = () if b is None else b.ranked_document_ids[:k]
    error_a = None if a.error is None else a.error.kind
    error_b = "not asked" if b is None else (None if b.error is None else b.error.kind)
    both = error_a is None and error_b is None
    return DiffQuestion(
        question_id=a.question_id,
        question=texts.get(a.question_id) or a.question_text or (b and b.question_text) or "",
        jaccard=jaccard(top_a, top_b, k) if both else None,
        rbo=rbo(top_a, top_b, p) if both else None,
        top_a=top_a,
        top_b=top_b,
        error_a=error_a,
        error_b=error_b,
    )


def _bins(values: Sequence[float]) -> tuple[OverlapBin, ...]:
    counts = [0] * 10
    for v in values:
        counts[min(9, int(v * 10))] += 1
    return tuple(OverlapBin(i / 10, (i + 1) / 10, n) for i, n in enumerate(counts))


def diff_retrievers(
    questions: GoldenQuestionSet,
    retriever_a: str,
    retriever_b: str,
    *,
    k: int = DEFAULT_DIFF_K,
    rbo_p: float = DEFAULT_RBO_P,
    concurrency: int = 8,
    timeout_s: float | None = None,
    progress: Progress | None = None,
    config_path: Path | None = None,
    token: str | None = None,
) -> Diff:
    """Ask both retrievers every question (``k`` times the default overfetch, so that
    chunks still leave k distinct documents) and diff their top k. Names resolve in
    ``config_path`` (default ./reval.toml), as ``evaluate`` resolves them."""
    # the coordinator only to measure: report.diff reads Diff without it
    from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate

    if k < 1:
        raise InputError(f"invalid --k {k}: it must be >= 1")
    if retriever_a == retriever_b:
        raise InputError(f"the two retrievers are the same: {retriever_a!r}")
    unlabelled = GoldenQuestionSet(
        name=questions.name,
        questions=tuple(GoldenQuestion(q.id, q.question, Form.UNLABELLED, ())
                        for q in questions.questions),
    )  # fmt: skip
    options = EvalOptions(ks=(k,), concurrency=concurrency, timeout_s=timeout_s)
    a, b = evaluate(
        [unlabelled],
        [retriever_a, retriever_b],
        options,
        progress=progress,
        config_path=config_path,
        token=token,
    )
    texts = {q.id: q.question for q in questions.questions}
    return diff_runs(a, b, texts, k=k, rbo_p=rbo_p)
