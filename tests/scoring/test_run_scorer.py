"""The per-run scoring path (``RunScorer``) against the plain one, on random cases: each
answer's outcome equals ``score_question``'s and its tally key ``row_key`` of that
outcome; a run's metrics and latency, tallied as its answers arrive, equal those computed
from its outcomes afterwards."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.evaluation import accumulate
from retrieval_eval.evaluation.accumulate import RunAccumulator
from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunState
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.metrics import summarize_with_breakdowns
from retrieval_eval.scoring.protocol import normalize_ks, score_question
from retrieval_eval.scoring.run import RunScorer
from retrieval_eval.scoring.tally import ERROR_KEY, row_key

CASES = settings(
    max_examples=150, deadline=None, database=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)  # fmt: skip
DOCS = [f"d{i}" for i in range(8)] + ["x#y"]
LIMIT = 12
ids = st.sampled_from(DOCS) | st.builds(
    lambda doc, n: f"{doc}#{n}", st.sampled_from(DOCS), st.integers(0, 2)
)
# None: a failed retrieval; a ranking may break the contract (an empty id, too many ids).
answers = st.none() | st.lists(ids | st.just(""), max_size=LIMIT + 1).map(tuple)
questions = st.builds(
    lambda n, form, labels, hard: GoldenQuestion(f"q{n}", "text", form, labels, hard_class=hard),
    st.integers(0, 10**6),
    st.sampled_from(list(Form)),
    st.lists(st.sampled_from([*DOCS, "elsewhere"]), max_size=10).map(tuple),
    st.sampled_from([None, "near-duplicate"]),
)
FAILED = RetrievalFailure(FailureKind.TIMEOUT, "deadline")


def _checked(answer: tuple[str, ...] | None) -> bool:
    """Whether a checking source would have passed ``answer`` on."""
    return answer is not None and len(answer) <= LIMIT and all(answer)


@CASES
@given(
    st.lists(st.tuples(questions, answers), max_size=25),
    st.lists(st.sampled_from([1, 2, 3, 5, 10, 20]), max_size=3).map(normalize_ks),
    st.sampled_from(["#", ""]),
    st.booleans(),
)
def test_each_outcome_and_key_equal_the_plain_scoring(cases, ks, separator, checked) -> None:
    scorer = RunScorer(ks, LIMIT, separator, checked=checked)
    for q, answer in cases:
        if checked and not _checked(answer):
            answer = None  # a checking source raises instead: a failure is recorded
        ranking = None if answer is None else Ranking(answer)
        error = FAILED if answer is None else None
        outcome, key = scorer.score(q, ranking, error, 2.5)
        expected = score_question(
            q, ranking, ks=ks, limit=LIMIT, separator=separator, latency_ms=2.5, error=error
        )
        assert outcome == expected
        assert key == (ERROR_KEY if expected.error is not None else row_key(expected, ks))


@CASES
@given(
    st.lists(st.tuples(questions, answers, st.floats(0.1, 100.0)), min_size=1, max_size=25),
    st.booleans(),
)
def test_a_runs_tallied_metrics_equal_those_of_its_outcomes(cases, interrupt) -> None:
    unique = {q.id: (q, a, ms) for q, a, ms in cases}
    qs = GoldenQuestionSet("s", tuple(q for q, _, _ in unique.values()))
    parameters = RunParameters(doc_id_separator="#")
    acc = RunAccumulator(qs, "t", RetrieverDescription("t"), parameters)
    for index, (_, answer, ms) in enumerate(unique.values()):
        if interrupt and index == len(unique) - 1:
            break  # the last question never measured
        ranking = None if answer is None else Ranking(answer)
        acc.record(index, ranking, FAILED if answer is None else None, ms)
    run = acc.result({})
    metrics, by_form, by_class = summarize_with_breakdowns(run.questions, parameters.ks)
    assert (run.metrics, run.by_form, run.by_hard_class) == (metrics, by_form, by_class)
    assert run.latency == run_latency(run.questions)
    # breaches are contract errors here too: this accumulator's source checked nothing
    for outcome, (_, answer, _) in zip(run.questions, unique.values(), strict=False):
        if answer is not None and not _checked(answer):
            assert outcome.error is not None and outcome.error.kind == FailureKind.CONTRACT


@CASES
@given(
    st.lists(st.tuples(questions, answers, st.booleans()), min_size=1, max_size=25),
    st.lists(st.sampled_from([1, 2, 3, 5, 10, 20]), max_size=3).map(normalize_ks),
    st.sampled_from(["#", ""]),
    st.sampled_from([1, 2, 3, accumulate.BATCH]),
    st.booleans(),
)
def test_a_checked_sources_answers_kept_by_their_fields_equal_the_plain_scoring(
    cases, ks, separator, batch, interrupt
) -> None:
    """Answers of ids alone from a source that judged them are kept without an outcome
    built (``RunScorer.answer``, ``add_answer``), scored a batch at a time; among answers
    with scores and failures, each reads back as ``score_question``'s outcome, and the
    run's metrics as its own, whether the last batch was full or the run stopped early."""
    unique = {q.id: (q, a, scored) for q, a, scored in cases}
    qs = GoldenQuestionSet("s", tuple(q for q, _, _ in unique.values()))
    parameters = RunParameters(ks=ks, limit=LIMIT, doc_id_separator=separator)
    default, accumulate.BATCH = accumulate.BATCH, batch
    try:
        acc = RunAccumulator(qs, "t", RetrieverDescription("t"), parameters, checked=True)
        expected = []
        for index, (q, answer, scored) in enumerate(unique.values()):
            if interrupt and index == len(unique) - 1:
                break  # the last question never measured
            if not _checked(answer):
                answer = None  # a checking source raises instead: a failure is recorded
            ranking = None
            if answer is not None:
                scores = tuple(float(i) for i in range(len(answer))) if scored else ()
                ranking = Ranking(answer, scores)
            error = FAILED if answer is None else None
            acc.record(index, ranking, error, 1.5 + index)
            expected.append(score_question(q, ranking, ks=ks, limit=LIMIT, separator=separator,
                                           latency_ms=1.5 + index, error=error))  # fmt: skip
        run = acc.result({})
    finally:
        accumulate.BATCH = default
    assert list(run.questions) == expected
    assert (run.state == RunState.INTERRUPTED) is interrupt
    metrics, by_form, by_class = summarize_with_breakdowns(expected, ks)
    assert (run.metrics, run.by_form, run.by_hard_class) == (metrics, by_form, by_class)


def test_a_full_answer_of_few_documents_kept_by_its_fields_is_underfilled() -> None:
    """Twelve chunks of five documents fill the limit but not the deepest k (10)."""
    q = GoldenQuestion("q", "text", Form.MATCH, ("d3",))
    answer = Ranking(tuple(f"d{i // 3}#{i % 3}" for i in range(LIMIT)))
    ks = normalize_ks((1, 3, 10))
    parameters = RunParameters(ks=ks, limit=LIMIT, doc_id_separator="#")
    acc = RunAccumulator(GoldenQuestionSet("s", (q,)), "t", RetrieverDescription("t"),
                         parameters, checked=True)  # fmt: skip
    acc.record(0, answer, None, 1.0)
    (outcome,) = acc.result({}).questions
    assert outcome.underfilled and outcome.ranked_document_ids == ("d0", "d1", "d2", "d3")
    assert outcome == score_question(q, answer, ks=ks, limit=LIMIT, separator="#",
                                     latency_ms=1.0, error=None)  # fmt: skip
