"""Grades and IR measures kept by the run store, through the installed ``reval``: a set
with grades (zeros, a declared 0-3 scale) imported with ``sets import-trec`` and judged
through the judging page's own save, evaluated from a TREC run file with measures and
stored; ``runs export`` gives back exactly the set's judgments, ``runs show``, ``runs
history`` and ``runs compare`` carry the stored measures, and ``runs rescore`` of the
unchanged set reproduces every stored figure, measures included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval
from ruamel.yaml import YAML
from support.cli import run_reval

from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.questions.loading import load_question_set

QRELS = ["t1 0 a 2", "t1 0 b 0", "t1 0 c 1", "t2 0 d 0", "t3 0 e 3", "t3 0 f -1", "t4 0 h 1"]
TOPICS = ["t1\tfirst question", "t2\tsecond question", "t3\tthird question", "t4\tfourth"]
#: Ties, an unjudged document (x, y, g before it is judged) and a judged-zero one first.
RUN = [
    "t1 Q0 b 1 9.0 tag", "t1 Q0 g 2 8.0 tag", "t1 Q0 a 3 8.0 tag", "t1 Q0 x 4 7.0 tag",
    "t1 Q0 c 5 1.0 tag", "t2 Q0 d 1 3.0 tag", "t2 Q0 y 2 2.0 tag", "t3 Q0 f 1 5.0 tag",
    "t3 Q0 e 2 4.0 tag", "t4 Q0 x 1 1.0 tag", "t4 Q0 h 2 0.5 tag",
]  # fmt: skip
MEASURES = "P@2,AP,Rprec,Bpref,RR,nDCG@3,Judged@2"


def reval(*args: str | Path) -> str:
    done = run_reval(*args, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def judged_set(tmp_path: Path) -> Path:
    """The imported set, with t1 judged on the page's code path: g (a candidate nobody
    had judged) not relevant, a regraded 3 on the declared scale."""
    (tmp_path / "qrels.txt").write_text("\n".join(QRELS) + "\n")
    (tmp_path / "topics.tsv").write_text("\n".join(TOPICS) + "\n")
    set_file = tmp_path / "set.yaml"
    reval("sets", "import-trec", tmp_path / "qrels.txt", "--topics", tmp_path / "topics.tsv",
          "--out", set_file)  # fmt: skip
    yaml = YAML()
    document = yaml.load(set_file)
    t1 = next(q for q in document["questions"] if q["id"] == "t1")
    t1["labelling"] = {"state": "unjudged",
                       "candidates": [{"document_id": "a"}, {"document_id": "g"}]}  # fmt: skip
    yaml.dump(document, set_file)
    judgement = Judgement("t1", relevant=frozenset({"a"}), complete=True, grades={"a": 3},
                          judge="tester")  # fmt: skip
    save_judgement(set_file, judgement)
    return set_file


def evaluate(tmp_path: Path, set_file: Path, *extra: str) -> dict:
    (tmp_path / "run.txt").write_text("\n".join(RUN) + "\n")
    out = reval("eval", "--set", set_file, "--retriever", f"run:{tmp_path / 'run.txt'}",
                "--k", "1,3", "--measures", MEASURES, "--db", db(tmp_path), "--format", "json",
                *extra)  # fmt: skip
    (run,) = json.loads(out)["runs"]
    return dict(run)


def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite'}"


def set_judgments(set_file: Path) -> set[tuple[str, str, int]]:
    qs = load_question_set(str(set_file))
    return {(q.id, doc, grade) for q in qs.questions for doc, grade in q.grades.items()}


def test_exported_qrels_are_the_sets_judgments_exactly(tmp_path, judged_set):
    judged = set_judgments(judged_set)
    assert {
        ("t1", "a", 3),
        ("t1", "g", 0),
        ("t1", "b", 0),
        ("t2", "d", 0),
        ("t3", "f", 0),
    } <= judged
    run = evaluate(tmp_path, judged_set)
    qrels = tmp_path / "out.qrels"
    done = run_reval("runs", "export", run["run_id"], "--qrels", qrels, "--db", db(tmp_path))
    assert done.returncode == 0, done.stderr
    lines = qrels.read_text().splitlines()
    exported = [(topic, doc, int(grade)) for topic, _, doc, grade in map(str.split, lines)]
    assert len(exported) == len(set(exported))
    assert set(exported) == judged


@pytest.mark.parametrize("convention", ["reval", "trec_eval"])
def test_stored_measures_are_shown_compared_and_rescored_exactly(tmp_path, judged_set, convention):
    extra = ("--trec-means",) if convention == "trec_eval" else ()
    source = evaluate(tmp_path, judged_set, *extra)
    measures = source["measures"]
    assert measures["convention"] == convention and set(measures["values"]) == set(
        MEASURES.split(",")
    )
    shown = json.loads(reval("runs", "show", source["run_id"], "--db", db(tmp_path),
                             "--format", "json"))  # fmt: skip
    assert shown["runs"][0]["measures"] == measures
    text = reval("runs", "show", source["run_id"], "--db", db(tmp_path))
    assert "IR measures" in text and f"{measures['values']['nDCG@3']['value']:.4f}" in text

    out = tmp_path / "rescored.json"
    reval("runs", "rescore", source["run_id"], "--set", judged_set, "--db", db(tmp_path),
          "--format", "json", "--output", out)  # fmt: skip
    (again,) = json.loads(out.read_text())["runs"]
    for key in set(source) | set(again):
        if key not in {"run_id", "regression", "acceptance"}:
            assert again.get(key) == source.get(key), key

    retriever = source["retriever"]["identifier"]
    where = ("--set", source["set"], "--retriever", retriever, "--db", db(tmp_path))
    history = json.loads(reval("runs", "history", *where, "--format", "json"))
    assert [e["measures"] for e in history["entries"]] == [measures, measures]
    history_text = reval("runs", "history", *where)
    assert "IR measures" in history_text and "nDCG@3" in history_text
    history_markdown = reval("runs", "history", *where, "--format", "markdown")
    assert f"nDCG@3 {measures['values']['nDCG@3']['value']:.4f}" in history_markdown

    compared = json.loads(reval("runs", "compare", source["run_id"], again["run_id"], "--db",
                                db(tmp_path), "--format", "json"))  # fmt: skip
    assert compared["measure_names"] == MEASURES.split(",")
    deltas = {d["metric"]: d for d in compared["versus"][0]["deltas"]}
    for name, m in measures["values"].items():
        assert deltas[name]["reference"] == deltas[name]["value"] == m["value"]
        assert deltas[name]["delta"] == 0
    compare_text = reval("runs", "compare", source["run_id"], again["run_id"], "--db",
                         db(tmp_path))  # fmt: skip
    assert "IR measures against A" in compare_text
    compare_markdown = reval("runs", "compare", source["run_id"], again["run_id"], "--db",
                             db(tmp_path), "--format", "markdown")  # fmt: skip
    assert "| nDCG@3 |" in compare_markdown and "(+0.0000)" in compare_markdown


def pytrec_means(set_file: Path, run: dict) -> dict[str, float]:
    """trec_eval's means (through pytrec_eval) of the run's rankings on the set's grades."""
    qrels: dict[str, dict[str, int]] = {}
    for topic, doc, grade in set_judgments(set_file):
        qrels.setdefault(topic, {})[doc] = grade
    ranked = {q["id"]: q["ranked_document_ids"] for q in run["questions"]}
    scored = {
        t: {d: float(len(docs) - i) for i, d in enumerate(docs)} for t, docs in ranked.items()
    }
    asked = {"P.2", "map", "ndcg_cut.3", "bpref", "Rprec", "recip_rank"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, asked).evaluate(scored)
    names = {"P@2": "P_2", "AP": "map", "nDCG@3": "ndcg_cut_3", "Bpref": "bpref",
             "Rprec": "Rprec", "RR": "recip_rank"}  # fmt: skip
    return {mine: sum(f[their] for f in theirs.values()) / len(theirs)
            for mine, their in names.items()}  # fmt: skip


def test_trec_eval_means_equal_pytrec_evals_before_and_after_a_rescore(tmp_path, judged_set):
    run = evaluate(tmp_path, judged_set, "--trec-means")
    for name, mean in pytrec_means(judged_set, run).items():
        assert run["measures"]["values"][name]["value"] == pytest.approx(mean, abs=1e-12), name
    yaml = YAML()
    document = yaml.load(judged_set)
    t3 = next(q for q in document["questions"] if q["id"] == "t3")
    t3["judgments"] = {"e": 0, "f": 2}  # the labels moved: f is the answer, e is not
    yaml.dump(document, judged_set)
    out = tmp_path / "rescored.json"
    reval("runs", "rescore", run["run_id"], "--set", judged_set, "--db", db(tmp_path),
          "--format", "json", "--output", out)  # fmt: skip
    (again,) = json.loads(out.read_text())["runs"]
    assert again["measures"]["convention"] == "trec_eval"
    moved = pytrec_means(judged_set, again)
    for name, mean in moved.items():
        assert again["measures"]["values"][name]["value"] == pytest.approx(mean, abs=1e-12), name
    assert again["measures"]["values"]["RR"] != run["measures"]["values"]["RR"]
    qrels = tmp_path / "rescored.qrels"
    reval("runs", "export", again["run_id"], "--qrels", qrels, "--db", db(tmp_path))
    lines = qrels.read_text().splitlines()
    assert {(t, d, int(g)) for t, _, d, g in map(str.split, lines)} == set_judgments(judged_set)
