"""A baseline file carries a graded run as the store holds it, through the installed
``reval``: the candidate of a planted before/after judged against the exported file names
the same unjudged losses as against the stored baseline, and ``runs show`` of the file's
run (read back through the store it came from) has the same judgments and measures."""

from __future__ import annotations

import json

from retrieval_eval.regression.baseline_file import read_baseline_file

from .test_unjudged_verdict import BASE, CAND, UNJUDGED, gate, reval, write_files

MEASURES = "P@1,AP,nDCG@3,Judged@2"


def test_a_graded_baseline_file_judges_unjudged_losses_as_the_store_does(serve_table, db, tmp_path):
    set_file, _ = write_files(tmp_path)
    _, base = gate(set_file, serve_table(BASE, identifier="s"), db, "--measures", MEASURES)
    out = tmp_path / "features.baseline.json"
    done = reval("runs", "export-baseline", base["run_id"], "--out", out, "--db", db)
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format_version"] == 2
    assert document["questions"][0][-1] == {"t0": 2, "n0": 0}  # the set's judgments, zeros kept

    candidate = serve_table(CAND, identifier="s")
    code_file, against_file = gate(set_file, candidate, db, "--measures", MEASURES,
                                   "--no-save", "--baseline-file", out)  # fmt: skip
    code_store, against_store = gate(set_file, candidate, db, "--measures", MEASURES)
    by_file, by_store = against_file["regression"], against_store["regression"]
    assert (code_file, code_store) == (1, 1)
    assert by_file["verdict"] == by_store["verdict"] == "regression"
    assert by_file["baseline_run_id"] == by_store["baseline_run_id"] == base["run_id"]
    assert by_file["unjudged_losses"] == by_store["unjudged_losses"] == list(UNJUDGED)
    assert by_file["unjudged"]["by_k"] == by_store["unjudged"]["by_k"]
    assert by_file["unjudged"]["line"] == by_store["unjudged"]["line"].replace(
        against_store["run_id"], "RUN"
    )  # an unsaved run is RUN in the judging command

    loaded = read_baseline_file(out).run  # the file's run: the stored run's figures
    shown = json.loads(reval("runs", "show", base["run_id"], "--db", db, "--format",
                             "json").stdout)["runs"][0]  # fmt: skip
    assert loaded.to_dict()["measures"] == shown["measures"] == base["measures"]
    assert shown["measures"]["values"]["P@1"]["value"] == 1.0
    assert {q.question_id: dict(loaded.grades_of(q)) for q in loaded.questions} == {
        f"q{i}": {f"t{i}": 2, f"n{i}": 0} for i in range(10)}  # fmt: skip
