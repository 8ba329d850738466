"""``--retriever run:FILE`` through the real CLI: qrels imported with ``sets import-trec``,
a TREC run file evaluated, and every figure equal to pytrec_eval's from the same two
files; the run file as a member of a fusion, in a comparison and in a diff; on SciFact,
a run file of the BM25 plugin's own rankings scores exactly as the plugin does."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
import pytrec_eval
from support.cli import run_reval

from retrieval_eval.scoring.metrics import rank_metrics

KS = (1, 3, 5, 10)


def _random_files(tmp_path: Path, seed: int) -> tuple[Path, Path, Path, dict[str, set[str]]]:
    """Qrels (binary, so that this version's loader reads the imported set), topics and a
    run with ties, duplicate documents, trailing columns, a rank column that lies, lines
    out of order, topics the run lacks and run topics the qrels lack."""
    rng = random.Random(seed)
    docs = [f"doc-{i}" for i in range(60)]
    qrels: dict[str, set[str]] = {}
    qrels_lines, topic_lines, run_lines = [], [], []
    for t in range(80):
        topic = f"t{t}"
        qrels[topic] = set(rng.sample(docs, rng.randint(1, 6)))
        qrels_lines += [f"{topic} 0 {d} 1" for d in sorted(qrels[topic])]
        topic_lines.append(f"{topic}\tquestion number {t}")
        if t % 9 == 4:
            continue  # no run line: an empty answer
        for rank, doc in enumerate(rng.sample(docs, rng.randint(1, 25)), 1):
            score = rng.choice([1.0, 2.0, 2.5, 3.0])  # few values: many ties
            run_lines.append(f"{topic} Q0 {doc} {rng.randint(1, 99)} {score} tag{seed}")
            if rng.random() < 0.1:  # the same document again, at a lower score
                run_lines.append(f"{topic} Q0 {doc} {rank} {score - 0.75} tag{seed} extra")
    run_lines += [f"orphan Q0 doc-1 1 1.0 tag{seed}", f"orphan Q0 doc-2 2 0.5 tag{seed}"]
    rng.shuffle(run_lines)
    write = lambda name, lines: (tmp_path / name).write_text("\n".join(lines) + "\n")  # noqa: E731
    write("qrels.txt", qrels_lines)
    write("topics.tsv", topic_lines)
    write("run.txt", run_lines)
    return tmp_path / "qrels.txt", tmp_path / "topics.tsv", tmp_path / "run.txt", qrels


def _pytrec_run(run_file: Path) -> dict[str, dict[str, float]]:
    """The run as pytrec_eval takes it: one score per document (its best line's)."""
    run: dict[str, dict[str, float]] = {}
    for line in run_file.read_text().splitlines():
        topic, _, doc, _, score, *_ = line.split()
        kept = run.setdefault(topic, {})
        kept[doc] = max(kept.get(doc, float("-inf")), float(score))
    return run


def _truncated(run: dict[str, dict[str, float]], k: int) -> dict[str, dict[str, float]]:
    """Each topic's best k documents in trec_eval's order (score, then id, descending)."""
    return {
        topic: dict(sorted(docs.items(), key=lambda d: (d[1], d[0]), reverse=True)[:k])
        for topic, docs in run.items()
    }


def _import(qrels_file: Path, topics_file: Path, set_file: Path) -> None:
    done = run_reval("sets", "import-trec", qrels_file, "--topics", topics_file, "--out", set_file)
    assert done.returncode == 0, done.stderr


def _evaluate(tmp_path: Path, set_file: Path, *specs: str, config: Path | None = None) -> dict:
    args = ["eval", "--set", set_file, "--db", f"sqlite:///{tmp_path / 'runs.sqlite'}"]
    args += ["--k", ",".join(map(str, KS)), "--format", "json"]
    args += ["--config", config] if config is not None else []
    for spec in specs:
        args += ["--retriever", spec]
    done = run_reval(*args)
    assert done.returncode == 0, done.stderr
    result: dict = json.loads(done.stdout)
    result["stderr"] = done.stderr
    return result


@pytest.mark.parametrize("seed", [0, 1])
def test_every_figure_equals_pytrec_evals_from_the_same_files(tmp_path: Path, seed: int) -> None:
    qrels_file, topics_file, run_file, qrels = _random_files(tmp_path, seed)
    set_file = tmp_path / "set.yaml"
    _import(qrels_file, topics_file, set_file)
    result = _evaluate(tmp_path, set_file, f"run:{run_file}")
    (run,) = result["runs"]
    assert run["complete"] and run["metrics"]["count"] == 80
    assert (
        "1 of 72 topics in the run file are not questions of the evaluated sets"
        in (result["stderr"])
    )  # the orphan topic
    trec_qrels = {topic: dict.fromkeys(docs, 1) for topic, docs in qrels.items()}
    full = _pytrec_run(run_file)
    cut = ",".join(map(str, KS))
    theirs = pytrec_eval.RelevanceEvaluator(
        trec_qrels, {f"ndcg_cut.{cut}", f"recall.{cut}", f"success.{cut}"}
    ).evaluate(full)
    rr = {
        k: pytrec_eval.RelevanceEvaluator(trec_qrels, {"recip_rank"}).evaluate(_truncated(full, k))
        for k in KS
    }
    means = dict.fromkeys(
        [f"{m}@{k}" for m in ("hit", "mrr", "recall", "binary_ndcg") for k in KS], 0.0
    )
    for question in run["questions"]:
        topic = question["id"]
        order = list(_truncated(full, 1000).get(topic, {}))
        assert question["ranked_document_ids"] == order[: len(question["ranked_document_ids"])]
        figures = theirs.get(topic, {})  # a topic without run lines is absent: all 0
        mine = rank_metrics(question["ranked_document_ids"], sorted(qrels[topic]), KS)
        for k in KS:
            reference = {
                f"hit@{k}": figures.get(f"success_{k}", 0.0),
                f"mrr@{k}": rr[k].get(topic, {}).get("recip_rank", 0.0),
                f"recall@{k}": figures.get(f"recall_{k}", 0.0),
                f"binary_ndcg@{k}": figures.get(f"ndcg_cut_{k}", 0.0),
            }
            assert float(question["hits"][str(k)]) == reference[f"hit@{k}"], topic
            for name in ("mrr", "recall", "binary_ndcg"):
                assert mine[f"{name}@{k}"] == pytest.approx(reference[f"{name}@{k}"], abs=1e-9)
            for key, value in reference.items():
                means[key] += value / 80
    metrics = run["metrics"]
    for k in KS:
        hit = metrics["top1_hit_rate"] if k == 1 else metrics["top3_hit_rate"] if k == 3 else None
        assert (hit if hit is not None else metrics[f"hit_rate@{k}"]) == pytest.approx(
            means[f"hit@{k}"], abs=1e-9
        )
        for name in ("mrr", "recall", "binary_ndcg"):
            assert metrics[f"{name}@{k}"] == pytest.approx(means[f"{name}@{k}"], abs=1e-9)


def test_run_files_fuse_compare_and_diff_like_any_retriever(tmp_path: Path) -> None:
    qrels_file, topics_file, run_a, _ = _random_files(tmp_path, 0)
    (tmp_path / "b").mkdir()
    run_b = _random_files(tmp_path / "b", 1)[2]
    set_file = tmp_path / "set.jsonl"
    _import(qrels_file, topics_file, set_file)
    chunked = tmp_path / "chunks.txt"  # run A's lines with chunk ids "<doc>#<n>"
    chunked.write_text(
        "".join(
            f"{t} Q0 {d}#{n} {r} {s} tag\n"
            for n, line in enumerate(run_a.read_text().splitlines())
            for t, _, d, r, s, *_ in [line.split()]
        )
    )
    config = tmp_path / "reval.toml"
    config.write_text(
        f'[retrievers.chunked]\nkind = "run"\npath = "{chunked.name}"\nchunk_separator = "#"\n'
        f'[retrievers.hybrid]\nfuse = ["chunked", "run:{run_b}"]\n'
    )
    result = _evaluate(tmp_path, set_file, f"run:{run_a}", "chunked", "hybrid", config=config)
    plain, chunks, fused = result["runs"]
    assert chunks["retriever"]["provenance"]["chunk_separator"] == "#"
    assert [q["ranked_document_ids"] for q in chunks["questions"]] == [
        q["ranked_document_ids"] for q in plain["questions"]
    ]  # the same documents once the chunk ids collapse (ties aside, none here differ)
    assert fused["retriever"]["identifier"] == f"rrf(chunked, run:{run_b})"
    assert fused["complete"] and any(q["ranked_document_ids"] for q in fused["questions"])
    compared = run_reval(
        "runs", "compare", plain["run_id"], fused["run_id"], "--format", "json",
        "--db", f"sqlite:///{tmp_path / 'runs.sqlite'}",
    )  # fmt: skip
    assert compared.returncode == 0, compared.stderr
    assert len(json.loads(compared.stdout)["runs"]) == 2
    diff = run_reval(
        "diff", "--questions", set_file, "--retriever", f"run:{run_a}", "--retriever",
        f"run:{run_b}", "--format", "json",
    )  # fmt: skip
    assert diff.returncode == 0, diff.stderr
    moved = json.loads(diff.stdout)
    assert moved["compared"] == 80 and moved["identical"] < 80
    tuned = run_reval("fusion", "tune", "hybrid", "--set", set_file, "--config", config)
    assert tuned.returncode == 0, tuned.stderr  # members asked by tuning know the question


def test_history_follows_the_content_of_the_run(tmp_path: Path) -> None:
    qrels_file, topics_file, run_file, _ = _random_files(tmp_path, 0)
    set_file = tmp_path / "set.yaml"
    _import(qrels_file, topics_file, set_file)
    first = _evaluate(tmp_path, set_file, f"run:{run_file}")["runs"][0]
    again = _evaluate(tmp_path, set_file, f"run:{run_file}")["runs"][0]
    assert again["retriever"]["variant"] == first["retriever"]["variant"]
    assert again["regression"]["verdict"] == "pass"  # the same rankings against themselves
    copy = tmp_path / "elsewhere.txt"
    shutil.copy(run_file, copy)
    moved = _evaluate(tmp_path, set_file, f"run:{copy}")["runs"][0]
    assert moved["retriever"]["version"] == first["retriever"]["version"]
    run_file.write_text(run_file.read_text().replace("doc-1 ", "doc-59 ", 3))
    changed = _evaluate(tmp_path, set_file, f"run:{run_file}")["runs"][0]
    assert changed["retriever"]["version"] != first["retriever"]["version"]


def test_a_bad_run_file_is_a_one_line_error(tmp_path: Path) -> None:
    qrels_file, topics_file, run_file, _ = _random_files(tmp_path, 0)
    set_file = tmp_path / "set.yaml"
    _import(qrels_file, topics_file, set_file)
    run_file.write_text("t1 Q0 doc-1 1 1.0 tag\nt1 Q0 doc-2 2\n")
    done = run_reval("eval", "--set", set_file, "--retriever", f"run:{run_file}", "--no-save")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"reval: error: {run_file}:2: expected 6 columns (topic Q0 document rank score tag), got 4"
    ]


def test_a_run_file_of_bm25_over_scifact_scores_as_the_plugin_does(
    tmp_path: Path, scifact_dir: Path
) -> None:
    """The plugin's rankings written as TREC runs. With scores from rank, the run scores
    exactly as the plugin evaluated directly. With BM25's own scores, documents of equal
    score are ranked as trec_eval ranks them (id descending), not in the plugin's order,
    so only those reorder; every figure still equals pytrec_eval's from that file."""
    pytest.importorskip("reval_bm25")
    from reval_bm25.index import build_index
    from reval_bm25.retriever import open_index

    index = tmp_path / "index"
    build_index(scifact_dir / "corpus.jsonl.gz", index)
    set_file = tmp_path / "scifact.yaml"
    done = run_reval("sets", "import-beir", scifact_dir, "--out", set_file)
    assert done.returncode == 0, done.stderr
    direct = _evaluate(tmp_path, set_file, f"bm25:{index}")["runs"][0]
    limit = direct["parameters"]["limit"]
    retriever = open_index(index)
    by_rank, by_score = tmp_path / "rank.run", tmp_path / "score.run"
    with by_rank.open("w") as ranked, by_score.open("w") as scored:
        for question in direct["questions"]:
            ranking = retriever.retrieve(question["text"], limit)
            for rank, doc in enumerate(ranking.document_ids, 1):
                score = ranking.scores[rank - 1]
                ranked.write(f"{question['id']} Q0 {doc} {rank} {limit - rank} bm25-flat\n")
                scored.write(f"{question['id']} Q0 {doc} {rank} {score!r} bm25-flat\n")
    replayed = _evaluate(tmp_path, set_file, f"run:{by_rank}", f"run:{by_score}")["runs"]
    figures = [{k: v for k, v in r["metrics"].items() if k != "intervals"} for r in replayed]
    assert figures[0] == {k: v for k, v in direct["metrics"].items() if k != "intervals"}
    assert [q["ranked_document_ids"] for q in replayed[0]["questions"]] == [
        q["ranked_document_ids"] for q in direct["questions"]
    ]
    reordered = 0
    for mine, plugin in zip(replayed[1]["questions"], direct["questions"], strict=True):
        assert sorted(mine["ranked_document_ids"]) == sorted(plugin["ranked_document_ids"])
        reordered += mine["ranked_document_ids"] != plugin["ranked_document_ids"]
    assert reordered  # SciFact's BM25 scores tie, and the two orders of a tie differ
    qrels: dict[str, dict[str, int]] = {}
    for line in (scifact_dir / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        topic, doc, grade = line.split("\t")
        qrels.setdefault(topic, {})[doc] = int(grade)
    cut = ",".join(map(str, KS))
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{cut}", f"recall.{cut}"})
    per_topic = theirs.evaluate(_pytrec_run(by_score))
    for k in KS:
        for name, measure in (("binary_ndcg", "ndcg_cut"), ("recall", "recall")):
            mean = sum(per_topic.get(t, {}).get(f"{measure}_{k}", 0.0) for t in qrels) / len(qrels)
            assert figures[1][f"{name}@{k}"] == pytest.approx(mean, abs=1e-9)
