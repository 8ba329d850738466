"""A baseline file holds the run as the store does: a graded run with IR measures read back
from its file equals the stored run (judgments in judgment order, zeros kept, measures,
convention, relevance level), the bytes depend on the run alone, and a version 1 file
(no judgments column, no measures) still loads as plain labels."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from support.factory import make_run
from support.store import pg_schema_url, store, store_url

from retrieval_eval.errors import InputError
from retrieval_eval.records.metrics import MeasureMean
from retrieval_eval.regression.baseline_file import (
    FORMAT_VERSION,
    baseline_document,
    read_baseline_file,
)

__all__ = ["pg_schema_url", "store", "store_url"]


def graded_run():
    """Judgments on two of five questions (a zero, a non-ASCII id, not in id order) and
    measures under trec_eval's means at level 2."""
    run = make_run("13E03")
    first, _, third = (q.question_id for q in run.questions[:3])
    judgments = {first: (("doc-x", 2), ("doc-y", 0), ("doc-ü", 1)), third: (("doc-a", 0),)}
    measures = {"nDCG@10": MeasureMean(0.1 + 0.2, 4, 0), "AP": MeasureMean(None, 0, 4),
                "P@10": MeasureMean(2 / 3, 3, 1)}  # fmt: skip
    return dataclasses.replace(run, judgments=judgments, measures=measures,
                               measure_convention="trec_eval", relevance_level=2)  # fmt: skip


def exported(store, run, tmp_path: Path) -> tuple[Path, object]:
    stored = store.get_stored(store.save(run))
    path = tmp_path / "base.json"
    path.write_text(baseline_document(stored), encoding="utf-8")
    return path, stored


def test_a_graded_run_with_measures_reads_back_from_its_file_as_stored(store, tmp_path):
    path, stored = exported(store, graded_run(), tmp_path)
    loaded = read_baseline_file(path).run
    assert loaded == stored.run
    assert list(loaded.judgments[loaded.questions[0].question_id]) == [
        ("doc-x", 2), ("doc-y", 0), ("doc-ü", 1)]  # fmt: skip
    assert list(loaded.measures) == ["nDCG@10", "AP", "P@10"]  # the order asked
    assert loaded.measures["nDCG@10"].value == 0.1 + 0.2
    assert (loaded.measure_convention, loaded.relevance_level) == ("trec_eval", 2)
    again = baseline_document(store.get_stored(stored.run.run_id))
    assert again == path.read_text(encoding="utf-8")  # same run, same bytes
    document = json.loads(again)
    assert document["format_version"] == FORMAT_VERSION == 2
    assert document["question_columns"][-1] == "judgments"
    assert document["questions"][0][-1] == {"doc-x": 2, "doc-y": 0, "doc-ü": 1}
    assert document["questions"][1][-1] is None  # plain labels: nothing more judged


def version_one(path: Path) -> None:
    """``path`` rewritten as reval wrote a baseline before grades and measures were kept."""
    document = json.loads(path.read_text(encoding="utf-8"))
    document["format_version"] = 1
    document["question_columns"] = document["question_columns"][:-1]
    document["questions"] = [row[:-1] for row in document["questions"]]
    for column in ("measures_json", "measure_convention", "relevance_level"):
        del document["run"][column]
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_version_one_file_loads_as_plain_labels(store, tmp_path):
    path, stored = exported(store, graded_run(), tmp_path)
    version_one(path)
    loaded = read_baseline_file(path).run
    assert loaded.judgments == {} and loaded.measures == {}
    assert (loaded.measure_convention, loaded.relevance_level) == ("reval", 1)
    first = loaded.questions[0]
    assert loaded.grades_of(first) == dict.fromkeys(first.expected_document_ids, 1)
    plain = dataclasses.replace(stored.run, judgments={}, measures={},
                                measure_convention="reval", relevance_level=1)  # fmt: skip
    assert loaded == plain  # everything else exactly as stored


@pytest.mark.parametrize(
    ("change", "culprit"),
    [
        (lambda d: d.update(format_version=3), "format version 3; this reval reads 1 and 2"),
        (lambda d: d.update(format_version=True), "format version True"),
        (lambda d: d["questions"][0].pop(), "a question row of the wrong length"),
        (lambda d: d["questions"][0].__setitem__(-1, ["doc-x"]), "malformed"),
        (lambda d: d.update(format_version=1), "question columns"),
    ],
    ids=["newer", "bool", "short-row", "judgments-not-an-object", "v1-with-v2-columns"],
)
def test_a_file_this_reval_cannot_read_is_bad_input_naming_it(tmp_path, change, culprit):
    from retrieval_eval.store.store import RunStore

    with RunStore.open(f"sqlite:///{tmp_path / 'runs.sqlite'}") as opened:
        path, _ = exported(opened, make_run("1303E"), tmp_path)
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InputError, match=r"base\.json") as raised:
        read_baseline_file(path)
    assert culprit in str(raised.value)
    assert "\n" not in str(raised.value)
