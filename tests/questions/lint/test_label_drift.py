"""Labels against their judged text, through ``reval sets lint --corpus`` on real files: each
of the four states, the JSON report, exit codes, and ``--fix-moved`` keeping the file's
comments and order in YAML (and its other lines in JSONL)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from retrieval_eval.cli.main import cli
from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.questions.loading import load_question_set

#: The corpus the set was judged on, and the corpus today: ``a`` unchanged, ``b`` edited,
#: ``c`` renamed ``c2`` (same text), ``d`` deleted, ``e`` new.
JUDGED_ON = {
    "a": ("Cats", "Cats sleep most of the day."),
    "b": ("Dogs", "Dogs need a walk twice a day."),
    "c": ("Birds", "Most birds can fly."),
    "d": ("Fish", "Fish breathe through gills."),
}
TODAY = {
    "a": ("Cats", "Cats sleep most of the day."),
    "b": ("Dogs", "Dogs need a walk three times a day."),
    "c2": ("Birds", "Most birds can fly."),
    "e": ("Frogs", "Frogs are amphibians."),
}
DIGEST = {doc: document_digest(*texts) for doc, texts in JUDGED_ON.items()}

SET = f"""\
# Pets set: judged on the spring export.
name: pets
questions:
  # sleeping
  - id: q1
    question: How long do cats sleep?
    form: MATCH
    expected_document_ids: [a, c]   # c is a trap, kept for the test
    document_digests: {{a: "{DIGEST["a"]}", c: "{DIGEST["c"]}"}}

  - id: q2   # walks
    question: How often should a dog be walked?
    expected_document_ids: [b]
    judgments: {{b: 2, d: 0}}
    document_digests:
      b: "{DIGEST["b"]}"   # judged on the old text
      d: "{DIGEST["d"]}"
  - id: q3
    question: Do birds fly?
    expected_document_ids: [c, e]
    document_digests: {{c: "{DIGEST["c"]}"}}
# end of set
"""


def write_corpus(path: Path, documents: dict[str, tuple[str, str]]) -> Path:
    lines = [json.dumps({"_id": doc, "title": t, "text": x}) for doc, (t, x) in documents.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus.jsonl", TODAY)


@pytest.fixture
def pets(tmp_path: Path) -> Path:
    path = tmp_path / "pets.yaml"
    path.write_text(SET)
    return path


@pytest.fixture
def lint() -> Callable[..., Result]:
    runner = CliRunner()

    def run(*args: str | Path) -> Result:
        argv = ["sets", "lint", *map(str, args), "--no-runs"]
        return runner.invoke(cli, argv, catch_exceptions=False)

    return run


def test_each_label_is_in_one_of_four_states(pets: Path, corpus: Path, lint: Callable) -> None:
    result = lint(pets, "--corpus", corpus, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    drift = report["label_digests"]
    assert {k: drift[k] for k in ("unchanged", "changed", "moved", "gone", "unrecorded")} == {
        "unchanged": 1,  # q1 a
        "changed": 1,  # q2 b
        "moved": 2,  # q1 c and q3 c -> c2
        "gone": 1,  # q2 d (judged not relevant, deleted)
        "unrecorded": 1,  # q3 e has no digest
    }
    assert drift["labels"] == [
        {"question_id": "q1", "document_id": "c", "grade": 1, "state": "moved", "moved_to": "c2"},
        {"question_id": "q2", "document_id": "b", "grade": 2, "state": "changed"},
        {"question_id": "q2", "document_id": "d", "grade": 0, "state": "gone"},
        {"question_id": "q3", "document_id": "c", "grade": 1, "state": "moved", "moved_to": "c2"},
    ]
    kinds = [(f["kind"], f["question_ids"], f["document_id"]) for f in report["findings"]]
    # a moved target is reported as moved, not also as an unknown document
    assert kinds == [
        ("document-moved", ["q1"], "c"),
        ("document-moved", ["q3"], "c"),
        ("document-changed", ["q2"], "b"),
    ]


def test_text_report_names_every_drifted_label(pets: Path, corpus: Path, lint: Callable) -> None:
    result = lint(pets, "--corpus", corpus)
    assert result.exit_code == 0
    assert (
        "labels against their judged text: 1 unchanged, 1 changed since judged, "
        "2 moved to another id, 1 gone, 1 without a digest"
    ) in result.output
    assert "  q1: c moved -> c2 (--fix-moved)\n" in result.output
    assert "  q2: b changed\n" in result.output
    assert "  q2: d gone\n" in result.output
    assert lint(pets, "--corpus", corpus, "--strict").exit_code == 1


def test_fix_moved_relabels_keeping_comments_and_order(
    pets: Path, corpus: Path, lint: Callable
) -> None:
    before = load_question_set(pets)
    result = lint(pets, "--corpus", corpus, "--fix-moved", "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stderr == f"fixed 2 moved labels in {pets}\n"
    text = pets.read_text()
    for line in SET.splitlines():
        if "#" in line and "[a, c]" not in line:
            assert line in text, line
    assert "expected_document_ids: [a, c2]  # c is a trap, kept for the test" in text
    data = yaml.safe_load(text)["questions"]
    assert [q["id"] for q in data] == ["q1", "q2", "q3"]
    assert list(data[0]["document_digests"]) == ["a", "c2"]
    assert data[0]["document_digests"]["c2"] == DIGEST["c"]
    assert data[2]["expected_document_ids"] == ["c2", "e"]
    assert data[1] == yaml.safe_load(SET)["questions"][1]  # nothing moved in q2
    # the lint of the fixed set has no moved label left
    drift = json.loads(result.stdout)["label_digests"]
    assert (drift["moved"], drift["unchanged"]) == (0, 3)
    assert load_question_set(pets).fingerprint != before.fingerprint  # the ids changed
    # a second run has nothing to fix and changes no byte
    again = lint(pets, "--corpus", corpus, "--fix-moved")
    assert again.output.startswith("fixed 0 moved labels in")
    assert pets.read_text() == text


def test_fix_moved_rewrites_a_gzipped_yaml_set_in_place_keeping_comments(
    tmp_path: Path, corpus: Path, lint: Callable
) -> None:
    """The loader reads ``.yaml.gz`` (as ``.json.gz`` and ``.jsonl.gz``): the fix writes it
    back gzipped, atomically, with the same round trip as a plain YAML set."""
    plain, packed = tmp_path / "plain.yaml", tmp_path / "pets.yaml.gz"
    plain.write_text(SET)
    packed.write_bytes(gzip.compress(SET.encode()))
    result = lint(packed, "--corpus", corpus, "--fix-moved")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"fixed 2 moved labels in {packed}\n")
    lint(plain, "--corpus", corpus, "--fix-moved")
    assert gzip.decompress(packed.read_bytes()).decode() == plain.read_text()
    assert "# Pets set: judged on the spring export." in plain.read_text()
    assert load_question_set(packed).questions[2].expected_document_ids == ("c2", "e")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("pets")) == [
        "pets.yaml.gz", "pets.yaml.gz.lock",
    ]  # fmt: skip


def test_fix_moved_in_jsonl_rewrites_only_the_lines_that_move(
    tmp_path: Path, corpus: Path, lint: Callable
) -> None:
    lines = [
        json.dumps({"reval_question_set": 1, "name": "pets"}),
        json.dumps({"id": "q1", "question": "Cats?", "expected_document_ids": ["a", "c"],
                    "document_digests": {"a": DIGEST["a"], "c": DIGEST["c"]}}),
        '{"id": "q2",   "question": "Dogs?", "judgments": {"b": 1}, '
        f'"document_digests": {{"b": "{DIGEST["b"]}"}}}}',
    ]  # fmt: skip
    path = tmp_path / "pets.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = lint(path, "--corpus", corpus, "--fix-moved")
    assert result.output.startswith(f"fixed 1 moved label in {path}\n")
    written = path.read_text().split("\n")
    assert written[0] == lines[0] and written[2] == lines[2]  # byte for byte
    q1 = json.loads(written[1])
    assert q1["expected_document_ids"] == ["a", "c2"]
    assert q1["document_digests"] == {"a": DIGEST["a"], "c2": DIGEST["c"]}


def test_fix_moved_in_json_keeps_key_order(tmp_path: Path, corpus: Path, lint: Callable) -> None:
    document = {
        "name": "pets",
        "questions": [{"id": "q1", "question": "Cats?", "judgments": {"c": 2, "a": 0},
                       "document_digests": {"c": DIGEST["c"], "a": DIGEST["a"]}}],
    }  # fmt: skip
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(document))
    lint(path, "--corpus", corpus, "--fix-moved")
    q1 = json.loads(path.read_text())["questions"][0]
    assert list(q1["judgments"].items()) == [("c2", 2), ("a", 0)]
    assert list(q1["document_digests"]) == ["c2", "a"]


def test_a_set_without_digests_reports_none(tmp_path: Path, corpus: Path, lint: Callable) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("questions:\n  - {id: q1, question: Cats?, expected_document_ids: [a]}\n")
    report = json.loads(lint(path, "--corpus", corpus, "--format", "json").stdout)
    assert report["label_digests"] is None
    assert "labels against their judged text" not in lint(path, "--corpus", corpus).output


def test_a_digest_under_several_ids_is_gone_not_guessed(
    tmp_path: Path, pets: Path, lint: Callable
) -> None:
    twice = {**TODAY, "c3": JUDGED_ON["c"]}  # the judged text now under c2 and c3
    corpus = write_corpus(tmp_path / "twice.jsonl", twice)
    drift = json.loads(lint(pets, "--corpus", corpus, "--format", "json").stdout)["label_digests"]
    assert (drift["moved"], drift["gone"]) == (0, 3)
    lint(pets, "--corpus", corpus, "--fix-moved")
    assert pets.read_text() == SET


def test_fix_moved_keeps_the_indentation_of_a_set_pyyaml_wrote(
    tmp_path: Path, corpus: Path, lint: Callable
) -> None:
    """An imported set has its dashes at the parent's column: only the moved lines change."""
    questions = [{"id": "q1", "question": "Cats?", "judgments": {"a": 1, "c": 0},
                  "document_digests": {"a": DIGEST["a"], "c": DIGEST["c"]}}]  # fmt: skip
    path = tmp_path / "imported.yaml"
    path.write_text(yaml.safe_dump({"name": "pets", "questions": questions}, sort_keys=False))
    before = path.read_text().splitlines()
    lint(path, "--corpus", corpus, "--fix-moved")
    after = path.read_text().splitlines()
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    digest = DIGEST["c"]
    assert changed == [("    c: 0", "    c2: 0"), (f"    c: {digest}", f"    c2: {digest}")]
