"""The library as a notebook or script uses it: plain objects in, typed results out."""

from __future__ import annotations

import asyncio
import json

import pytest

import retrieval_eval
from retrieval_eval import (
    EvalOptions,
    Form,
    GoldenQuestion,
    GoldenQuestionSet,
    RetrievedItem,
    RetrieverDescription,
    RunState,
    aevaluate,
    evaluate,
)
from retrieval_eval.errors import InputError
from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.json_format import render_json

PAGES = {
    "install-linux": "install the agent on linux debian ubuntu fedora",
    "encryption": "the password never leaves your machine",
    "pricing": "plans and pricing per machine per month",
}


def question_set() -> GoldenQuestionSet:
    questions = (
        GoldenQuestion("q-install", "install on fedora?", Form.MATCH, ("install-linux",)),
        GoldenQuestion("q-password", "lost my password", Form.GAP, ("encryption",)),
        GoldenQuestion("q-price", "what does a machine cost", Form.GAP, ("pricing",)),
        GoldenQuestion("q-tape", "tape drives", Form.MATCH, ()),
    )
    return GoldenQuestionSet("demo", questions)


def ranked(question: str) -> list[tuple[str, float]]:
    words = set(question.lower().replace("?", "").split())
    scores = {page: len(words & set(text.split())) for page, text in PAGES.items()}
    return sorted(((p, float(s)) for p, s in scores.items() if s), key=lambda ps: -ps[1])


class KeywordIds:
    """Sync, plain string ids, no describe, a close that must not be called."""

    closed = False

    def retrieve(self, question: str, limit: int) -> list[str]:
        return [page for page, _ in ranked(question)][:limit]

    def close(self) -> None:
        self.closed = True


class KeywordPairs:
    """Async, (id, score) pairs, with a describe."""

    async def retrieve(self, question: str, limit: int) -> list[tuple[str, float]]:
        return ranked(question)[:limit]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("keyword-pairs", version="2")


class KeywordItems:
    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        return [RetrievedItem(page, score) for page, score in ranked(question)][:limit]


def test_plain_objects_of_every_shape_are_evaluated() -> None:
    ids, pairs, items = KeywordIds(), KeywordPairs(), KeywordItems()
    runs = evaluate([question_set()], [ids, pairs, items])
    assert [r.retriever_target for r in runs] == ["KeywordIds", "KeywordPairs", "KeywordItems"]
    assert [r.retriever.identifier for r in runs] == ["KeywordIds", "keyword-pairs", "KeywordItems"]
    for run in runs:
        assert run.state is RunState.COMPLETE
        hits = {q.question_id: q.top1_hit for q in run.questions}
        # "what does a machine cost" shares "machine" with two pages: encryption comes first
        assert hits == {"q-install": True, "q-password": True, "q-price": False, "q-tape": True}
    assert runs[1].questions[0].raw_ids == ("install-linux",)
    assert not ids.closed  # the caller owns its objects


def test_a_mixed_list_of_specs_and_objects(tmp_path) -> None:
    from retrieval_eval.errors import UnknownNameError

    with pytest.raises(UnknownNameError):
        evaluate([question_set()], [KeywordIds(), "no-such-retriever"])


def test_an_object_without_retrieve_is_bad_input() -> None:
    with pytest.raises(InputError, match="object is not a retriever"):
        evaluate([question_set()], [object()])  # type: ignore[list-item]


def test_a_failing_object_gives_errors_not_misses() -> None:
    class Broken:
        def retrieve(self, question: str, limit: int) -> list[str]:
            if "tape" in question:
                raise RuntimeError("index offline")
            return ["wrong"]

    (run,) = evaluate([question_set()], [Broken()], EvalOptions(timeout_s=5))
    assert run.state is RunState.INCOMPLETE and run.error_count == 1
    assert run.metrics.count == 3 and run.metrics.values["top1_hit_rate"] == 0.0
    (failed,) = [q for q in run.questions if q.error]
    assert failed.error is not None and "index offline" in failed.error.message


def test_evaluate_inside_a_running_loop_points_to_aevaluate() -> None:
    async def notebook_cell() -> list[retrieval_eval.RunResult]:
        with pytest.raises(InputError, match="aevaluate"):
            evaluate([question_set()], [KeywordIds()])
        return await aevaluate([question_set()], [KeywordPairs()])

    (run,) = asyncio.run(notebook_cell())
    assert run.metrics.values["top3_hit_rate"] == 1.0


def test_repr_is_one_short_line_with_the_headline_figures() -> None:
    (run,) = evaluate([question_set()], [KeywordPairs()])
    text = repr(run)
    assert "\n" not in text and len(text) < 200
    assert "'demo' × 'keyword-pairs 2'" in text and "complete" in text
    assert "top1=0.750(3/4)" in text and "top3=1.000(4/4)" in text and "errors=0" in text


def test_to_dict_is_the_runs_object_in_the_json_report() -> None:
    (run,) = evaluate([question_set()], [KeywordPairs()])
    document = json.loads(render_json([RunReport(run)]))
    assert document["runs"][0] == json.loads(json.dumps(run.to_dict()))
    assert run.to_dict()["metrics"]["intervals"]["top1_hit_rate"]["successes"] == 3


def test_the_public_names_are_importable_and_listed() -> None:
    for name in retrieval_eval.__all__:
        assert getattr(retrieval_eval, name) is not None
    assert set(retrieval_eval.__all__) <= set(dir(retrieval_eval))
