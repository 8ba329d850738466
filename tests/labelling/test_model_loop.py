"""The whole loop of labelling with a model, through the installed ``reval`` and a real
chat-completions server on loopback: ``sets generate`` drafts checked questions from the
example corpus, ``sets judge --llm-url`` grades them with provenance, the cache makes a
second run send nothing, ``sets agreement --reference`` measures the model against the
example set's human labels, and a set whose model labels the team's rule does not trust
cannot gate CI (``reval eval --fail-on-regression``, exit 2)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml
from support.chat_server import ChatServer, Reply, completion, prompt_of, title_of
from support.model_jobs import questions, reval

from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.labelling.judge import Judgement, save_judgement
from retrieval_eval.labelling.llm.prompts import load_template
from retrieval_eval.questions.corpus import read_corpus
from retrieval_eval.questions.lint.overlap import OverlapMeter, suggested_form
from retrieval_eval.records.outcome import Form

CORPUS, PEOPLE = corpus_path(), questions_path()
DOCUMENTS = {d.id: d for d in read_corpus(CORPUS)}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


def line_after(prompt: str, label: str) -> str:
    found = re.search(rf"^{label}: (.*)$", prompt, re.MULTILINE)
    return found.group(1).strip() if found else ""


def model(request: dict[str, Any]) -> Reply:
    """Writes questions, or grades one: relevant when the question shares a word with the
    document's title. Its GAP question repeats the title for every other document (the
    form check must catch those)."""
    prompt = prompt_of(request)
    if "Question:" in prompt:
        question, title = line_after(prompt, "Question"), line_after(prompt, "Document title")
        grade = int(bool(words(question) & words(title)))
        return completion(json.dumps({"grade": grade, "reason": f"title words: {grade}"}))
    title = title_of(request)
    gap = f"{title} explained" if len(title) % 2 else f"my stuff vanished ({title.split()[0]})"
    found = [{"form": "MATCH", "question": f"{title}?"}, {"form": "GAP", "question": gap}]
    return completion(json.dumps({"questions": found}))


def graded_by(path: Path, source: str) -> dict[tuple[str, str], int]:
    return {
        (q["id"], doc): grade
        for q in questions(path)
        for entry in q["labelling"]["history"]
        if entry["by"] == source
        for doc, grade in entry["grades"].items()
    }


def test_generate_judge_cache_and_agreement_on_the_example_corpus(
    tmp_path: Path, bm25_specs: tuple[str, str]
) -> None:
    draft, fresh = tmp_path / "drafted.yaml", tmp_path / "fresh-copy.yaml"
    url_args = ("--corpus", CORPUS, "--sample", "8", "--seed", "3")
    with ChatServer(model) as server:
        made = reval(tmp_path, "sets", "generate", *url_args, "--llm-url", server.url,
                     "--model", "writer", "--out", draft)  # fmt: skip
        assert made.returncode == 0, made.stderr
        assert len(server.requests) == 8 and "8 requests sent, 0 answers" in made.stdout
        # the forms passed the form check: each is the form its measured overlap gives
        header = yaml.safe_load(draft.read_text(encoding="utf-8"))
        check = header["generated"]["form_check"]
        meter = OverlapMeter.from_texts(f"{d.title} {d.text}" for d in DOCUMENTS.values())
        drafted = questions(draft)
        for q in drafted:
            source = DOCUMENTS[q["expected_document_ids"][0]]
            overlap = meter.overlap(q["question"], [f"{source.title} {source.text}"])
            assert Form(q["form"]) is suggested_form(overlap, check["cutoff"])
        relabelled = [q for q in drafted if q["labelling"]["generated"]["asked_form"] != q["form"]]
        assert check["relabelled"] == len(relabelled) >= 1
        assert {q["form"] for q in relabelled} == {"MATCH"}  # a GAP in the document's words
        assert f"form check: {len(relabelled)} relabelled" in made.stdout
        shutil.copy(draft, fresh)

        # the model grades every candidate, each grade with its source and reason
        graded = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS,
                       "--llm-url", server.url, "--model", "judge")  # fmt: skip
        assert graded.returncode == 0, graded.stderr
        source = f"llm:judge@{load_template('judge').digest}"
        assert f"{source}: {len(drafted)} of {len(drafted)} candidates graded" in graded.stdout
        writer = f"llm:writer@{load_template('generate').digest}"
        for q in questions(draft):
            assert q["labelling"]["candidates"][0]["source"] == writer
            assert q["labelling"]["candidates"][0]["relevant"] is None  # advice, not a label
            entry = q["labelling"]["history"][-1]
            assert entry["by"] == source and set(entry["reasons"]) == set(entry["grades"])
            assert set(entry["digests"]) == set(entry["grades"])
        asked = len(server.requests)

        # the cache: the same jobs again send nothing, and answer the same
        again = reval(tmp_path, "sets", "generate", *url_args, "--llm-url", server.url,
                      "--model", "writer", "--out", tmp_path / "again.yaml")  # fmt: skip
        assert "0 requests sent, 8 answers from the cache" in again.stdout
        regraded = reval(tmp_path, "sets", "judge", fresh, "--corpus", CORPUS,
                         "--llm-url", server.url, "--model", "judge")  # fmt: skip
        assert regraded.returncode == 0, regraded.stderr
        assert len(server.requests) == asked
        assert graded_by(fresh, source) == graded_by(draft, source)
        assert [q["question"] for q in questions(tmp_path / "again.yaml")] == [
            q["question"] for q in drafted
        ]

        # against the example set's human labels: the model judges its questions blind
        blind = tmp_path / "blind.yaml"
        pages, _ = bm25_specs
        done = reval(tmp_path, "sets", "draft", PEOPLE, "--blind", "--corpus", CORPUS,
                     "--retriever", pages, "--depth", "3", "--out", blind)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert all(c["relevant"] is None for q in questions(blind)
                   for c in q["labelling"]["candidates"])  # fmt: skip
        judged = reval(tmp_path, "sets", "judge", blind, "--corpus", CORPUS,
                       "--llm-url", server.url, "--model", "judge")  # fmt: skip
        assert judged.returncode == 0, judged.stderr
    agreed = reval(tmp_path, "sets", "agreement", blind, "--judge", source, "--reference", PEOPLE)
    assert agreed.returncode == 0, agreed.stderr
    people = {(q["id"], d) for q in questions(PEOPLE) for d in q["expected_document_ids"]}
    shared = {k: g for k, g in graded_by(blind, source).items() if k in people}
    both = sum(shared.values())  # the example's labels are all "relevant"
    assert f"decisions compared: {len(shared)}" in agreed.stdout
    assert f"both relevant {both}, only {source} 0, " in agreed.stdout
    assert f"only {PEOPLE.name} labels {len(shared) - both}, neither 0" in agreed.stdout

    # the model's grades are drafts: under the team's rule nothing gates on them
    (tmp_path / "reval.toml").write_text("[labels]\nmin_kappa = 0.6\nmin_items = 30\n")
    for unjudged in (draft, blind):
        refused = reval(tmp_path, "eval", "--set", unjudged, "--retriever", pages,
                        "--fail-on-regression", "--no-save")  # fmt: skip
        assert refused.returncode == 2 and "not judged yet" in refused.stderr
    accept = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana",
                   "--accept")  # fmt: skip
    assert accept.returncode == 2 and "no judgement by ana" in accept.stdout + accept.stderr


def test_model_labels_gate_only_while_the_rule_trusts_them(
    tmp_path: Path, bm25_specs: tuple[str, str]
) -> None:
    draft = tmp_path / "drafted.yaml"
    with ChatServer(model) as server:
        for args in (("generate", "--corpus", CORPUS, "--sample", "8", "--out", draft),
                     ("judge", draft, "--corpus", CORPUS)):  # fmt: skip
            done = reval(tmp_path, "sets", *args, "--llm-url", server.url, "--model", "m")
            assert done.returncode == 0, done.stderr
    source = f"llm:m@{load_template('judge').digest}"
    everything = questions(draft)
    # a person judges some: each source document relevant, and one question answered by none
    for q in everything[:6]:
        doc = q["expected_document_ids"][0]
        save_judgement(draft, Judgement(q["id"], relevant=frozenset({doc}), complete=True,
                                        judge="ana"))  # fmt: skip
    save_judgement(draft, Judgement(everything[6]["id"], nothing_answers=True, judge="ana"))
    config = tmp_path / "reval.toml"
    config.write_text("[labels]\nmin_kappa = -1\nmin_items = 5\n")
    accepted = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana",
                     "--accept")  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr
    taken = [q["id"] for q in questions(draft) if q["labelling"]["judged_by"] == source]
    assert taken
    pages, _ = bm25_specs
    gate = ("eval", "--set", draft, "--retriever", pages, "--fail-on-regression", "--no-save")
    assert reval(tmp_path, *gate).returncode == 0  # accepted under the rule as it stands
    # the team raises its bar: the labels accepted under the old one no longer gate
    config.write_text("[labels]\nmin_kappa = 0.6\nmin_items = 5\n")
    refused = reval(tmp_path, *gate)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.count("\n") == 1
    assert f"{len(taken)} questions carry a model's labels ({taken[0]}" in refused.stderr
    assert "not accepted at min_kappa 0.6" in refused.stderr
    # a report that gates nothing still shows them
    assert reval(tmp_path, *gate[:-2], "--no-save").returncode == 0
    config.unlink()  # no rule: no model label is trusted
    assert "no [labels] rule" in reval(tmp_path, *gate).stderr


def test_judging_prints_its_estimate_first_and_stops_at_its_budget(tmp_path: Path) -> None:
    draft = tmp_path / "drafted.yaml"
    with ChatServer(model) as server:
        made = reval(tmp_path, "sets", "generate", "--corpus", CORPUS, "--sample", "4",
                     "--llm-url", server.url, "--model", "m", "--out", draft)  # fmt: skip
        assert made.returncode == 0, made.stderr
        count, sent = len(questions(draft)), len(server.requests)
        done = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS, "--llm-url",
                     server.url, "--model", "m", "--max-requests", "2", "--concurrency", "1",
                     "--price-in", "1", "--price-out", "2")  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert len(server.requests) - sent == 2
    first, second = done.stdout.splitlines()[:2]
    source = f"llm:m@{load_template('judge').digest}"
    assert re.fullmatch(
        rf"{re.escape(source)}: grading {count} candidates: about \d+ prompt \+ {count * 30} "
        r"completion tokens, about 0\.\d{4} at the given prices \(cached answers cost nothing\)",
        first,
    ), first
    assert second == f"{source}: 2 of {count} candidates graded in {draft}"
    assert f"stopped: --max-requests 2 reached; {count - 2} candidates not asked" in done.stdout
    assert len(graded_by(draft, source)) == 2


def test_prices_come_from_reval_toml_unless_the_options_give_them(tmp_path: Path) -> None:
    """[llm.prices] prices the model a job asks (its estimate and --max-cost stop, which
    sees every answer before the next call takes its slot); the options override it;
    another model's entry prices nothing; a bad entry is one line."""
    config = tmp_path / "reval.toml"
    config.write_text('[llm.prices]\nm = { prompt = 1000000, completion = 1000000 }\n'
                      'other = { prompt = 5 }\n')  # fmt: skip
    draft = tmp_path / "drafted.yaml"
    with ChatServer(model) as server:
        args = ("sets", "generate", "--corpus", CORPUS, "--sample", "4", "--llm-url", server.url,
                "--out", draft, "--no-cache")  # fmt: skip
        priced = reval(tmp_path, *args, "--model", "m", "--max-cost", "1", "--concurrency", "1")
        assert priced.returncode == 0, priced.stderr
        assert " at the given prices " in priced.stdout and "stopped: --max-cost 1" in priced.stdout
        sent = len(server.requests)
        assert sent == 1  # a unit per token: the first answer spends the budget
        overridden = reval(tmp_path, *args, "--model", "m", "--max-cost", "1",
                           "--price-in", "0", "--price-out", "0")  # fmt: skip
        assert overridden.returncode == 0, overridden.stderr
        assert "stopped" not in overridden.stdout and len(server.requests) - sent == 4
        unpriced = reval(tmp_path, *args, "--model", "n")
        assert unpriced.returncode == 0 and "at the given prices" not in unpriced.stdout
        config.write_text("[llm.prices]\nm = { prompt = -1 }\n")
        bad = reval(tmp_path, *args, "--model", "m")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "[llm.prices] 'm': prices must be numbers >= 0" in bad.stderr
