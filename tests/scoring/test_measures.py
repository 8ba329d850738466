"""The ir_measures-named measures equal trec_eval's (through pytrec_eval) and ir-measures'
on seeded random runs: graded, sparse and negative judgments, tied scores, chunk ids and
duplicate results; per question and in the mean, in both no-answer conventions."""

from __future__ import annotations

import gzip
import json
import math
import random
import re
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval

from retrieval_eval.errors import InputError
from retrieval_eval.retrievers.documents import distinct_documents
from retrieval_eval.scoring.measures import (
    DEFAULT_MEASURES,
    FAMILIES,
    Measure,
    QuestionFigures,
    mean_measures,
    parse_measures,
    question_measures,
    unjudged,
)

#: Each measure and trec_eval's name for it (RR@k, Judged@k: ir-measures' own only).
TREC_NAMES = {
    "P@5": "P_5",
    "P@10": "P_10",
    "R@5": "recall_5",
    "R@100": "recall_100",
    "RR": "recip_rank",
    "AP": "map",
    "AP@5": "map_cut_5",
    "Rprec": "Rprec",
    "Bpref": "bpref",
    "nDCG": "ndcg",
    "nDCG@5": "ndcg_cut_5",
    "nDCG@10": "ndcg_cut_10",
}
IR_ONLY = ("RR@5", "Judged@5", "Judged@10")
MEASURES = parse_measures(",".join([*TREC_NAMES, *IR_ONLY]))


def seeded_run(seed: int, questions: int = 80) -> tuple[dict, dict, dict]:
    """(qrels as written, with negatives; raw results per question as (id, score) with
    chunk ids, duplicates and ties; reval's ranking of distinct documents per question)."""
    rng = random.Random(seed)
    docs = [f"d{i:02d}" for i in range(40)]
    qrels: dict[str, dict[str, int]] = {}
    raw: dict[str, list[tuple[str, float]]] = {}
    ranked: dict[str, tuple[str, ...]] = {}
    for n in range(questions):
        qid = f"q{n}"
        shape = rng.random()
        if shape < 0.1:  # judged, nothing relevant
            judged = {d: rng.choice([0, -1, -2]) for d in rng.sample(docs, rng.randint(1, 4))}
        elif shape < 0.15:  # no judgment at all
            judged = {}
        else:  # sparse, graded, some negatives
            judged = {
                d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, 12))
            }
        if judged:
            qrels[qid] = judged
        results = []
        for _ in range(rng.randint(0, 30)):
            doc = rng.choice(docs)
            chunk = f"{doc}#{rng.randrange(3)}" if rng.random() < 0.5 else doc
            results.append((chunk, float(rng.randrange(8))))  # few scores: many ties
        # The retriever's order: trec_eval's (score descending, then id descending).
        results.sort(key=lambda r: (r[1], r[0]), reverse=True)
        raw[qid] = results
        ranked[qid] = tuple(distinct_documents([i for i, _ in results], "#"))
    return qrels, raw, ranked


def trec_run(ranked: dict[str, tuple[str, ...]]) -> dict[str, dict[str, float]]:
    """The distinct rankings as a trec run (strictly decreasing scores: reval's order)."""
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in ranked.items() if r}


def reval_figures(qrels: dict, ranked: dict, level: int = 1) -> dict[str, QuestionFigures]:
    figures = {}
    for qid, ranking in ranked.items():
        grades = {d: max(g, 0) for d, g in qrels.get(qid, {}).items()}  # negatives read as 0
        values = question_measures(ranking, grades, MEASURES, level)
        figures[qid] = QuestionFigures(values, bool(grades))
    return figures


def trec_qrels(qrels: dict) -> dict:
    """The qrels as written, except a topic judged only below 0: pytrec_eval's trec_eval
    corrupts its memory on one (a crash on a later evaluation), so its grades read as 0,
    as reval reads them."""
    return {
        q: docs if max(docs.values()) >= 0 else dict.fromkeys(docs, 0) for q, docs in qrels.items()
    }


def bpref_qrels(qrels: dict) -> dict:
    """trec_eval's bpref counts a retrieved document graded below 0 as a relevant one in
    its sum (m_bpref.c tests ``rel >= 0 && rel < level`` for non-relevant); reval reads a
    negative grade as 0, so bpref is checked against the grades as reval reads them."""
    return {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", [1, 2])
def test_every_measure_equals_trec_eval_per_question_and_in_the_mean(seed: int, level: int) -> None:
    qrels, _, ranked = seeded_run(seed)
    run = trec_run(ranked)
    ours = reval_figures(qrels, ranked, level)
    names = {t for m, t in TREC_NAMES.items() if m != "Bpref"}
    evaluator = pytrec_eval.RelevanceEvaluator(trec_qrels(qrels), names, relevance_level=level)
    theirs = evaluator.evaluate(run)
    bpref = pytrec_eval.RelevanceEvaluator(bpref_qrels(qrels), {"bpref"}, relevance_level=level)
    for qid, values in bpref.evaluate(run).items():
        theirs.setdefault(qid, {}).update(values)
    checked = 0
    for qid in qrels:  # trec_eval -c: every judged topic; one not retrieved scores 0
        for measure, trec in TREC_NAMES.items():
            value = ours[qid].values[measure]
            expected = theirs.get(qid, {}).get(trec, 0.0)
            assert (value or 0.0) == pytest.approx(expected, abs=1e-12), (qid, measure)
            checked += 1
    assert checked == len(qrels) * len(TREC_NAMES)
    means = mean_measures(ours.values(), MEASURES, trec_means=True)
    for measure, trec in TREC_NAMES.items():
        per_topic = [theirs.get(qid, {}).get(trec, 0.0) for qid in qrels]
        assert means[measure].count == len(qrels)
        assert round(means[measure].value, 4) == round(math.fsum(per_topic) / len(qrels), 4)
        assert means[measure].value == pytest.approx(math.fsum(per_topic) / len(qrels), abs=1e-12)


@pytest.mark.parametrize("seed", [4, 5])
def test_every_measure_equals_ir_measures_per_question(seed: int) -> None:
    qrels, _, ranked = seeded_run(seed)
    run = trec_run(ranked)
    ours = reval_figures(qrels, ranked)
    wanted = [ir_measures.parse_measure(m.name) for m in MEASURES if m.family != "Bpref"]
    found = 0
    for metric in ir_measures.iter_calc(wanted, trec_qrels(qrels), run):
        value = ours[metric.query_id].values[str(metric.measure)]
        assert (value or 0.0) == pytest.approx(metric.value, abs=1e-12), metric
        found += 1
    assert found > len(qrels)  # the library answered for most questions and measures
    bpref = ir_measures.parse_measure("Bpref")
    for metric in ir_measures.iter_calc([bpref], bpref_qrels(qrels), run):
        assert (ours[metric.query_id].values["Bpref"] or 0.0) == pytest.approx(metric.value)


def test_the_default_convention_leaves_out_questions_with_nothing_to_find() -> None:
    qrels, _, ranked = seeded_run(6)
    ours = reval_figures(qrels, ranked)
    means = mean_measures(ours.values(), MEASURES)
    relevant = [q for q in ranked if any(g >= 1 for g in qrels.get(q, {}).values())]
    assert means["AP"].count == len(relevant) and means["RR"].count == len(relevant)
    assert means["AP"].left_out == len(ranked) - len(relevant)
    assert means["P@5"].count == len(ranked) and means["P@5"].left_out == 0
    assert means["Judged@5"].count == sum(1 for r in ranked.values() if r)
    expected = math.fsum(ours[q].values["AP"] or 0.0 for q in relevant) / len(relevant)
    assert means["AP"].value == pytest.approx(expected)
    trec = mean_measures(ours.values(), MEASURES, trec_means=True)
    assert trec["P@5"].count == len(qrels) < len(ranked)  # unjudged questions: no topic
    assert trec["AP"].value < means["AP"].value  # zeros for questions with nothing to find


def test_unjudged_counts_the_returned_documents_without_a_grade() -> None:
    qrels, _, ranked = seeded_run(7)
    for qid, ranking in ranked.items():
        judged = qrels.get(qid, {})
        assert unjudged(ranking, judged) == len([d for d in ranking if d not in judged])
        values = question_measures(ranking, judged, parse_measures("Judged@10"))
        top = ranking[:10]
        share = (len(top) - unjudged(top, judged)) / len(top) if top else None
        assert values["Judged@10"] == share


def test_names_are_ir_measures_names_and_binary_ndcg_is_not_one() -> None:
    for measure in parse_measures(DEFAULT_MEASURES):
        assert str(ir_measures.parse_measure(measure.name)) == measure.name
    assert parse_measures("MAP,MRR") == (Measure("AP"), Measure("RR"))
    with pytest.raises(InputError, match=r"unknown measure 'ndcg@10'; did you mean nDCG@10\?"):
        parse_measures("ndcg@10")
    for bad, said in [
        ("P", "needs a cut-off"),
        ("Rprec@5", "takes no cut-off"),
        ("", "at least one"),
    ]:
        with pytest.raises(InputError, match=re.escape(said)):
            parse_measures(bad)


def test_graded_ndcg_on_scifact_equals_ir_measures(scifact_dir: Path) -> None:
    """Rankings of a real collection (word-overlap scores over a corpus slice) and its
    graded test qrels: graded nDCG@10 and the others, per question and in the mean."""
    with gzip.open(scifact_dir / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        corpus = [json.loads(line) for line in f][:2500]
    with gzip.open(scifact_dir / "queries.jsonl.gz", "rt", encoding="utf-8") as f:
        queries = {q["_id"]: q["text"] for q in map(json.loads, f)}
    qrels: dict[str, dict[str, int]] = {}
    for line in (scifact_dir / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    words = [set(re.findall(r"[a-z0-9]+", (d["title"] + " " + d["text"]).lower())) for d in corpus]
    ranked = {}
    for qid in sorted(qrels)[:60]:
        terms = set(re.findall(r"[a-z0-9]+", queries[qid].lower()))
        scores = sorted(
            ((len(terms & w), d["_id"]) for w, d in zip(words, corpus, strict=True)), reverse=True
        )
        ranked[qid] = tuple(doc for _, doc in scores[:100])
    chosen = {q: qrels[q] for q in ranked}
    ours = reval_figures(chosen, ranked)
    wanted = [ir_measures.parse_measure(m) for m in ("nDCG@10", "AP", "P@10", "R@100", "RR")]
    results = list(ir_measures.iter_calc(wanted, chosen, trec_run(ranked)))
    assert len(results) == len(wanted) * len(ranked)
    for metric in results:
        value = ours[metric.query_id].values[str(metric.measure)] or 0.0
        assert value == pytest.approx(metric.value, abs=1e-12), metric
    mean = mean_measures(ours.values(), MEASURES, trec_means=True)["nDCG@10"].value
    agg = ir_measures.calc_aggregate(
        [ir_measures.parse_measure("nDCG@10")], chosen, trec_run(ranked)
    )
    assert mean == pytest.approx(next(iter(agg.values())), abs=1e-12)


@pytest.mark.parametrize("trec_means", [False, True])
def test_a_runs_means_are_the_means_of_its_questions(trec_means: bool) -> None:
    """``run_measures`` (a column per measure, over outcomes) equals ``mean_measures``
    over ``question_measures``; a failed retrieval enters no mean."""
    from retrieval_eval.questions.model import GoldenQuestion
    from retrieval_eval.records.failures import FailureKind, RetrievalFailure
    from retrieval_eval.records.outcome import Form, QuestionOutcome
    from retrieval_eval.scoring.measures import run_measures

    qrels, _, ranked = seeded_run(8)
    questions = [
        GoldenQuestion(
            q,
            "x",
            Form.GAP,
            (),
            None,
            None,
            tuple((d, max(g, 0)) for d, g in qrels.get(q, {}).items()),
        )
        for q in ranked
    ]
    outcomes = [
        QuestionOutcome(q, Form.GAP, None, (), ranked_document_ids=r) for q, r in ranked.items()
    ]
    failed = RetrievalFailure(FailureKind.INTERNAL, "down")
    outcomes.append(QuestionOutcome("q0", Form.GAP, None, (), error=failed))
    ours = run_measures(outcomes, questions, MEASURES, trec_means=trec_means)
    figures = reval_figures(qrels, ranked)
    assert ours == mean_measures(figures.values(), MEASURES, trec_means=trec_means)


def test_no_metric_key_reads_as_a_measure_name_even_ignoring_case() -> None:
    """Binary nDCG (a metric key) and graded nDCG (a measure) must never be mistaken for
    each other in a report, a store or a spreadsheet that folds case."""
    from retrieval_eval.metric_keys import MetricFamily, metric_key

    for k in (1, 3, 5, 10, 100):
        keys = {
            metric_key(family, k).lower()
            for family in MetricFamily
            if family not in (MetricFamily.TOP1_HIT_RATE, MetricFamily.TOP3_HIT_RATE)
        }
        names = {Measure(family, k).name.lower() for family in FAMILIES if family != "Rprec"}
        names |= {Measure(family).name.lower() for family in FAMILIES}
        assert not keys & names, keys & names
