"""``reval eval --measures`` over a graded set and a live gRPC retriever: the figures in
the JSON and text reports are trec_eval's (through pytrec_eval) on the same rankings, in
both no-answer conventions, and ``--rel-level`` moves what is expected."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import pytrec_eval
from support.cli import GOOD, run_reval

GRADED = """\
name: graded
grade_scale: [0, 3]
questions:
  - {id: faq-1, question: question faq-1, judgments: {d1: 3, d9: 1}}
  - {id: faq-2, question: question faq-2, judgments: {d2: 1, d7: 0}}
  - {id: faq-3, question: question faq-3, judgments: {d3: 2, d4: 1, d8: 0}}
  - {id: faq-4, question: question faq-4, judgments: {d5: 0}}
"""
QRELS = {
    "faq-1": {"d1": 3, "d9": 1},
    "faq-2": {"d2": 1, "d7": 0},
    "faq-3": {"d3": 2, "d4": 1, "d8": 0},
    "faq-4": {"d5": 0},
}
TREC = {"P@3": "P_3", "RR": "recip_rank", "AP": "map", "nDCG@3": "ndcg_cut_3", "R@3": "recall_3"}


def trec_figures(level: int) -> dict[str, dict[str, float]]:
    run = {}
    for qid in QRELS:
        ranked = list(dict.fromkeys(i.split("#")[0] for i in GOOD[f"question {qid}"]))
        if ranked:
            run[qid] = {doc: float(len(ranked) - n) for n, doc in enumerate(ranked)}
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS, set(TREC.values()), relevance_level=level)
    return evaluator.evaluate(run)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("trec_means", [False, True])
def test_measures_equal_trec_eval_in_each_convention(
    serve_table, tmp_path: Path, level: int, trec_means: bool
) -> None:
    graded = tmp_path / "graded.yaml"
    graded.write_text(GRADED, encoding="utf-8")
    good = serve_table(GOOD, identifier="good")
    args = ["--measures", ",".join(TREC), "--rel-level", str(level), "--no-save"]
    done = run_reval("eval", "--set", graded, "--retriever", good, "--format", "json", *args,
                     *(["--trec-means"] if trec_means else []))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    measures = run["measures"]
    assert measures["convention"] == ("trec_eval" if trec_means else "reval")
    theirs = trec_figures(level)
    relevant = [q for q, docs in QRELS.items() if any(g >= level for g in docs.values())]
    for name, trec in TREC.items():
        figure = measures["values"][name]
        if trec_means or name == "P@3":
            over = list(QRELS)  # faq-4 returned nothing: 0 in trec_eval -c
        else:
            over = (
                relevant if name != "nDCG@3" else [q for q in QRELS if max(QRELS[q].values()) > 0]
            )
        expected = math.fsum(theirs.get(q, {}).get(trec, 0.0) for q in over) / len(over)
        assert figure["count"] == len(over), name
        assert figure["value"] == pytest.approx(expected, abs=1e-12), name
    expected_ids = {q["id"]: q["expected_document_ids"] for q in run["questions"]}
    assert expected_ids["faq-1"] == (["d1", "d9"] if level == 1 else ["d1"])


def test_text_report_names_each_denominator_and_bad_names_exit_2(serve_table, tmp_path) -> None:
    graded = tmp_path / "graded.yaml"
    graded.write_text(GRADED, encoding="utf-8")
    good = serve_table(GOOD, identifier="good")
    done = run_reval("eval", "--set", graded, "--retriever", good, "--no-save",
                     "--measures", "AP,nDCG@3,Judged@3")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "IR measures (reval's)" in done.stdout
    assert any(line.split()[:1] == ["AP"] and "(1 left out)" in line
               for line in done.stdout.splitlines()), done.stdout  # fmt: skip
    bad = run_reval("eval", "--set", graded, "--retriever", good, "--no-save",
                    "--measures", "ndcg@3")  # fmt: skip
    assert bad.returncode == 2
    assert "unknown measure 'ndcg@3'; did you mean nDCG@3?" in bad.stderr
