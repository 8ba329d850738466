"""The coordinator against retriever objects written here (plain objects with an async
``retrieve``, adapted by the coordinator, and ``AsyncRetriever`` implementations)."""

from __future__ import annotations

import asyncio

import pytest

from retrieval_eval.errors import RetrieverUnavailable
from retrieval_eval.evaluation.coordinator import (
    EvalOptions,
    EvaluationInterrupted,
    evaluate_all,
    evaluate_set,
)
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RetrieverDescription, RunState
from retrieval_eval.retrievers.protocol import RetrievedItem


def make_set(name: str, n: int, *, target_of=lambda i: f"doc{i}") -> GoldenQuestionSet:
    questions = tuple(
        GoldenQuestion(f"{name}-{i}", f"question {i}", Form.MATCH, (target_of(i),))
        for i in range(n)
    )
    return GoldenQuestionSet(name, questions)


class Oracle:
    """Answers "question i" with chunks of doc{i} after ``miss_every``-th misses; counts
    calls and the peak number in flight. No ``timeout_s``: the coordinator bounds it."""

    def __init__(
        self,
        target: str,
        *,
        delay: float = 0.0,
        separator: str = "#",
        miss_every: int = 0,
        fail: set[int] | None = None,
    ) -> None:
        self.target, self.delay, self.separator = target, delay, separator
        self.miss_every, self.fail = miss_every, fail or set()
        self.calls = self.in_flight = self.peak = 0
        self.limits: set[int] = set()
        self.describes = 0

    async def describe(self) -> RetrieverDescription:
        self.describes += 1
        return RetrieverDescription(self.target, "1", chunk_separator=self.separator)

    async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        self.calls += 1
        self.limits.add(limit)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        i = int(question.split()[-1])
        if i in self.fail:
            raise RetrieverUnavailable(self.target, "connection refused", "UNAVAILABLE")
        first = "other" if self.miss_every and i % self.miss_every == 0 else f"doc{i}"
        return [RetrievedItem(f"{first}#0"), RetrievedItem(f"{first}#1"), RetrievedItem("x#0")]

    async def close(self) -> None:
        pass


class Recorder:
    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []
        self.advanced: dict[object, int] = {}

    def start(self, label: str, total: int) -> object:
        self.started.append((label, total))
        return label

    def advance(self, task: object, n: int = 1) -> None:
        self.advanced[task] = self.advanced.get(task, 0) + n


async def test_two_sets_against_two_retrievers_give_four_runs() -> None:
    sets = [make_set("alpha", 20), make_set("beta", 12)]
    good, weak = Oracle("good"), Oracle("weak", miss_every=4)
    progress = Recorder()
    runs = await evaluate_all(sets, [good, weak], EvalOptions(), progress=progress)
    assert [(r.set_name, r.retriever_target) for r in runs] == [
        ("alpha", "good"),
        ("alpha", "weak"),
        ("beta", "good"),
        ("beta", "weak"),
    ]
    assert (good.describes, weak.describes) == (1, 1)  # once per retriever, not per run
    assert (good.calls, weak.calls) == (32, 32)
    assert good.limits == {12}  # 3 * 4
    assert all(r.state is RunState.COMPLETE and r.complete for r in runs)
    assert runs[0].metrics.values["top1_hit_rate"] == 1.0
    assert runs[1].metrics.values["top1_hit_rate"] == pytest.approx(15 / 20)  # 0,4,..16 miss
    assert runs[3].metrics.values["top1_hit_rate"] == pytest.approx(9 / 12)
    assert runs[0].parameters.doc_id_separator == "#"
    assert runs[0].questions[3].ranked_document_ids == ("doc3", "x")
    assert runs[0].set_fingerprint == sets[0].fingerprint
    assert runs[0].latency is not None and runs[0].latency.count == 20
    assert progress.started == [
        ("alpha × good", 20),
        ("alpha × weak", 20),
        ("beta × good", 12),
        ("beta × weak", 12),
    ]
    assert sorted(progress.advanced.values()) == [12, 12, 20, 20]


async def test_calls_in_flight_are_bounded_per_retriever() -> None:
    sets = [make_set("a", 30), make_set("b", 30)]
    one, two = Oracle("one", delay=0.005), Oracle("two", delay=0.005)
    await evaluate_all(sets, [one, two], EvalOptions(concurrency=5))
    assert (one.peak, two.peak) == (5, 5)  # the bound is reached and never exceeded


async def test_failures_are_errors_and_the_run_is_incomplete() -> None:
    flaky = Oracle("flaky", fail={2, 5})
    run = await evaluate_set(make_set("s", 10), flaky)
    assert run.state is RunState.INCOMPLETE and not run.complete
    assert run.error_count == 2
    assert (run.metrics.count, run.metrics.errors) == (8, 2)
    assert run.metrics.values["top1_hit_rate"] == 1.0  # over the answered questions
    failed = {q.question_id: q.error for q in run.questions if q.error is not None}
    assert set(failed) == {"s-2", "s-5"}
    assert failed["s-2"].kind == "unavailable"
    assert "connection refused" in failed["s-2"].message
    assert run.latency is not None and run.latency.count == 8


async def test_a_slow_call_is_a_timeout_error_not_a_miss() -> None:
    slow = Oracle("slow", delay=0.5)
    run = await evaluate_set(make_set("s", 3), slow, EvalOptions(timeout_s=0.05))
    assert [q.error.kind for q in run.questions if q.error] == ["timeout"] * 3
    assert run.metrics.count == 0 and run.metrics.values == {}


async def test_a_retriever_down_at_the_start_fails_fast() -> None:
    class Down(Oracle):
        async def describe(self) -> RetrieverDescription:
            raise RetrieverUnavailable(self.target, "connection refused", "UNAVAILABLE")

    down, up = Down("down:1234"), Oracle("up")
    with pytest.raises(RetrieverUnavailable, match="down:1234"):
        await evaluate_all([make_set("s", 5)], [up, down])
    assert up.calls == down.calls == 0


async def test_a_describe_that_hangs_is_unavailable() -> None:
    class Hangs(Oracle):
        async def describe(self) -> RetrieverDescription:
            await asyncio.sleep(10)
            raise AssertionError("unreachable")

    with pytest.raises(RetrieverUnavailable, match=r"hung.*Describe"):
        await evaluate_set(make_set("s", 1), Hangs("hung"), EvalOptions(timeout_s=0.05))


async def test_the_separator_option_overrides_describe() -> None:
    qs = make_set("s", 4)
    declared = await evaluate_set(qs, Oracle("r"))
    disabled = await evaluate_set(qs, Oracle("r"), EvalOptions(doc_id_separator=""))
    assert declared.parameters.doc_id_separator == "#"
    assert declared.metrics.values["top1_hit_rate"] == 1.0
    assert disabled.parameters.doc_id_separator == ""
    assert disabled.metrics.values["top1_hit_rate"] == 0.0  # "doc1#0" is not "doc1"
    assert disabled.questions[1].ranked_document_ids == ("doc1#0", "doc1#1", "x#0")


async def test_deadline_is_passed_to_async_retrievers() -> None:
    seen: list[float | None] = []

    class WithDeadline(Oracle):
        """An ``AsyncRetriever``: it enforces the deadline it is given."""

        configured_timeout_s = None

        async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
            return await super().describe()

        async def retrieve(
            self, question: str, limit: int, *, timeout_s: float | None = None
        ) -> list[RetrievedItem]:
            seen.append(timeout_s)
            return await super().retrieve(question, limit)

    await evaluate_set(make_set("s", 3), WithDeadline("r"), EvalOptions(timeout_s=2.5))
    assert seen == [2.5, 2.5, 2.5]


async def test_cancelling_midway_keeps_what_was_measured() -> None:
    sets = [make_set("a", 400), make_set("b", 50)]
    slow = Oracle("slow", delay=0.002)
    task = asyncio.create_task(evaluate_all(sets, [slow], EvalOptions(concurrency=4)))
    while slow.calls < 100:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(EvaluationInterrupted) as caught:
        await task
    runs = caught.value.runs
    assert [r.state for r in runs] == [RunState.INTERRUPTED, RunState.INTERRUPTED]
    measured = len(runs[0].questions)
    assert 90 <= measured < 400 and runs[1].questions == ()
    assert all(q.error is None and q.top1_hit for q in runs[0].questions)
    assert runs[0].metrics.count == measured
    assert slow.in_flight == 0  # in-flight calls were cancelled, not left running
    assert f"after {measured} measured" in str(caught.value)


async def test_invalid_options_name_the_option() -> None:
    from retrieval_eval.errors import InputError

    with pytest.raises(InputError, match="--concurrency"):
        await evaluate_set(make_set("s", 1), Oracle("r"), EvalOptions(concurrency=0))
    with pytest.raises(InputError, match="overfetch"):
        await evaluate_set(make_set("s", 1), Oracle("r"), EvalOptions(overfetch=0))


async def test_in_process_plugin_objects_through_the_real_adapter() -> None:
    from retrieval_eval.retrievers.in_process import InProcessRetriever

    class SyncPlugin:
        """A plugin as users write it: sync, plain string ids, sometimes failing."""

        def describe(self) -> RetrieverDescription:
            return RetrieverDescription("plugin", chunk_separator="/")

        def retrieve(self, question: str, limit: int) -> list[str]:
            i = int(question.split()[-1])
            if i == 4:
                raise KeyError("missing posting list")
            return [f"doc{i}/p1", f"doc{i}/p2", "other/p1"][:limit]

    adapter = InProcessRetriever(SyncPlugin(), target="plugin:demo", timeout_s=5.0)
    run = await evaluate_set(make_set("s", 6), adapter, EvalOptions(concurrency=3))
    assert run.retriever_target == "plugin:demo"
    assert run.state is RunState.INCOMPLETE
    assert run.metrics.values["top1_hit_rate"] == 1.0
    assert run.questions[0].ranked_document_ids == ("doc0", "other")
    (failed,) = [q for q in run.questions if q.error]
    assert failed.question_id == "s-4" and failed.error is not None
    assert failed.error.kind == "internal" and "missing posting list" in failed.error.message


async def test_deeper_ks_raise_the_request_limit_and_add_metrics() -> None:
    oracle = Oracle("r")
    run = await evaluate_set(make_set("s", 4), oracle, EvalOptions(ks=(10,), overfetch=2))
    assert oracle.limits == {20}  # deepest k 10 * overfetch 2
    assert run.parameters.ks == (1, 3, 10) and run.parameters.limit == 20
    assert {"top1_hit_rate", "top3_hit_rate", "hit_rate@10", "mrr@10", "binary_ndcg@1"} <= set(
        run.metrics.values
    )


async def test_underfilled_questions_are_counted_in_the_run() -> None:
    class OneDocument(Oracle):
        async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
            await super().retrieve(question, limit)
            return [RetrievedItem(f"doc0#{n}") for n in range(limit)]  # a full limit, 1 doc

    run = await evaluate_set(make_set("s", 5), OneDocument("r"))
    assert run.underfilled_count == 5
    assert all(q.underfilled and q.ranked_document_ids == ("doc0",) for q in run.questions)
    assert run.metrics.values["top1_hit_rate"] == pytest.approx(1 / 5)


async def test_a_malformed_response_is_an_internal_error() -> None:
    class Malformed(Oracle):
        async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
            await super().retrieve(question, limit)
            return [None]  # type: ignore[list-item]

    run = await evaluate_set(make_set("s", 2), Malformed("bad"))
    assert [q.error.kind for q in run.questions if q.error] == ["internal", "internal"]
    assert run.questions[0].error is not None
    assert "result 0 is NoneType" in run.questions[0].error.message


class Popular:
    """Every question gets the same five documents, each as two chunks: fresh strings
    on every call, as ids decoded from a response are."""

    target = "popular"

    async def describe(self) -> RetrieverDescription:
        return RetrieverDescription("popular", "1", chunk_separator="#")

    async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        return [RetrievedItem("".join(["doc", str(i // 2), "#", str(i % 2)])) for i in range(10)]

    async def close(self) -> None:
        pass


async def test_a_run_keeps_one_copy_of_each_id_and_hits_pattern():
    qs = make_set("s", 50, target_of=lambda i: f"doc{i % 7}")
    run = await evaluate_set(qs, Popular())
    first, *others = run.questions
    assert first.raw_ids == ("doc0#0", "doc0#1", "doc1#0", "doc1#1", "doc2#0", "doc2#1",
                             "doc3#0", "doc3#1", "doc4#0", "doc4#1")  # fmt: skip
    assert first.ranked_document_ids == ("doc0", "doc1", "doc2", "doc3", "doc4")
    for other in others:  # equal values, and the very same objects
        assert all(a is b for a, b in zip(other.raw_ids, first.raw_ids, strict=True))
        assert all(
            a is b
            for a, b in zip(other.ranked_document_ids, first.ranked_document_ids, strict=True)
        )
    hits = {id(q.hits) for q in run.questions}
    patterns = {tuple(q.hits.items()) for q in run.questions}
    assert len(hits) == len(patterns) == 3  # doc0 top-1; doc1/2 top-3 only; doc3-6 miss
    assert run.questions[1].hits == {1: False, 3: True}
