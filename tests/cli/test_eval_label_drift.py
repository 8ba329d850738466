"""``reval eval --corpus`` warns, in one stderr line per set, when the labels it scores
against rest on documents changed since they were judged; it reads the corpus only when
a set records digests, and never changes the verdict or the fingerprint."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

from retrieval_eval.corpus.digest import document_digest

OLD = {"a": ("A", "alpha"), "b": ("B", "beta"), "c": ("C", "gamma")}
NOW = {"a": ("A", "alpha"), "b": ("B", "beta, edited"), "c2": ("C", "gamma")}


def write_files(tmp_path: Path, digests: bool) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(
        json.dumps({"_id": doc, "title": t, "text": x}) + "\n" for doc, (t, x) in NOW.items()
    ))  # fmt: skip
    rows = [("q1", "alpha?", ["a"]), ("q2", "beta?", ["b"]), ("q3", "gamma?", ["c"])]
    lines = []
    for qid, text, expected in rows:
        record: dict[str, object] = {"id": qid, "question": text, "expected_document_ids": expected}
        if digests:
            record["document_digests"] = {d: document_digest(*OLD[d]) for d in expected}
        lines.append(json.dumps(record))
    path = tmp_path / ("judged.jsonl" if digests else "plain.jsonl")
    path.write_text("\n".join(lines) + "\n")
    return path, corpus


def eval_json(
    invoke: Callable[..., Result], set_file: Path, url: str, *extra: Path | str
) -> Result:
    args = ["--set", set_file, "--retriever", url, "--no-save", "--format", "json", *extra]
    return invoke("eval", *args)


def test_eval_warns_once_naming_how_many_labels_drifted(
    tmp_path: Path, serve_table: Callable[..., str], invoke: Callable[..., Result]
) -> None:
    set_file, corpus = write_files(tmp_path, digests=True)
    url = serve_table({"alpha?": ["a"], "beta?": ["b"], "gamma?": ["c2"]})
    warned = eval_json(invoke, set_file, url, "--corpus", corpus)
    assert warned.exit_code == 0
    assert warned.stderr == (
        "reval: warning: set 'judged': 2 of 3 labels with a digest rest on documents changed "
        f"since they were judged (1 changed, 1 moved, 0 gone); see reval sets lint {set_file} "
        f"--corpus {corpus}\n"
    )
    # the report carries it too: among the JSON report's warnings, and in Markdown
    said = warned.stderr.removeprefix("reval: warning: ").rstrip("\n")
    assert json.loads(warned.stdout)["warnings"] == [said]
    markdown = tmp_path / "report.md"
    written = eval_json(
        invoke, set_file, url, "--corpus", corpus, "--report", f"markdown:{markdown}"
    )
    assert written.exit_code == 0
    assert f"> warning: {said}" in markdown.read_text()
    quiet = eval_json(invoke, set_file, url)
    assert quiet.stderr == "" and json.loads(quiet.stdout)["warnings"] == []
    # the report is the same either way: provenance never changes a figure or a fingerprint
    with_warning, without = json.loads(warned.stdout), json.loads(quiet.stdout)
    for report in (with_warning, without):
        for run in report["runs"]:
            run.pop("started_at", None), run.pop("finished_at", None), run.pop("run_id", None)
    assert [r["set_fingerprint"] for r in with_warning["runs"]] == [
        r["set_fingerprint"] for r in without["runs"]
    ]
    assert [r["metrics"] for r in with_warning["runs"]] == [r["metrics"] for r in without["runs"]]


def test_a_set_without_digests_never_reads_the_corpus(
    tmp_path: Path, serve_table: Callable[..., str], invoke: Callable[..., Result]
) -> None:
    set_file, _corpus = write_files(tmp_path, digests=False)
    unreadable = tmp_path / "broken.jsonl"
    unreadable.write_text("{this is not json\n")  # reading it would be exit 2
    url = serve_table({"alpha?": ["a"]})
    result = eval_json(invoke, set_file, url, "--corpus", unreadable)
    assert result.exit_code == 0 and result.stderr == ""
