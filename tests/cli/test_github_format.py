"""``reval eval --format github``: workflow commands a GitHub runner turns into
annotations: the verdict of each run, one warning per lost hit, escaped so that no text
of a question can end a command or forge another."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from support.cli import BAD, GOOD, run_reval

COMMAND = re.compile(r"^::(error|warning|notice) title=([^:]*)::(.*)$")


def _eval(sets: dict[str, Path], target: str, db: str) -> tuple[int, list[str]]:
    done = run_reval("eval", "--set", sets["faq"], "--retriever", target, "--db", db,
                     "--format", "github", "--fail-on-regression")  # fmt: skip
    return done.returncode, done.stdout.splitlines()


def test_a_regression_is_an_error_with_a_warning_per_lost_hit(sets, serve_table, db) -> None:
    code, first = _eval(sets, serve_table(GOOD, identifier="s"), db)
    assert code == 0
    assert first[0].startswith("::warning title=reval no-baseline%3A faq × s 1::no-baseline: ")
    code, lines = _eval(sets, serve_table(BAD, identifier="s"), db)
    assert code == 1
    commands = [COMMAND.match(line) for line in lines[:-1]]
    assert all(commands), lines
    kinds = [m.group(1) for m in commands if m]
    assert kinds[0] == "error" and lines[0].startswith(
        "::error title=reval regression%3A faq × s 1::"
    )
    assert "warning" in kinds  # the lost hits: exactly which, below against the JSON verdict
    assert lines[-1] == "reval: ❌ 1 of 1 run failed the gate (1 regression)"


def test_flips_match_the_json_verdict(sets, serve_table, db) -> None:
    import json

    run_reval(
        "eval", "--set", sets["faq"], "--retriever", serve_table(GOOD, identifier="s"), "--db", db
    )
    bad = serve_table(BAD, identifier="s")
    as_json = run_reval("eval", "--set", sets["faq"], "--retriever", bad, "--db", db, "--no-save",
                        "--format", "json")  # fmt: skip
    flips = json.loads(as_json.stdout)["runs"][0]["regression"]["flips"]
    expected = sorted(
        f"reval%3A {f['question_id']} lost its top-{f['k']} hit"
        for f in flips
        if f["direction"] == "hit->miss"
    )
    assert expected
    code, lines = _eval(sets, bad, db)
    assert code == 1
    titles = sorted(
        m.group(2) for line in lines if (m := COMMAND.match(line)) and "lost its" in line
    )
    assert titles == expected


def test_question_text_cannot_forge_a_command(tmp_path: Path, serve_table, db) -> None:
    text = "reset password\n::error::forged, 100%"
    path = tmp_path / "tricky.yaml"
    path.write_text(
        yaml.safe_dump({"name": "tricky", "questions": [
            {"id": "q:1,a", "question": text, "form": "MATCH", "expected_document_ids": ["d1"]}
        ]}),
        encoding="utf-8",
    )  # fmt: skip
    good = serve_table({text: ["d1#0"]}, identifier="t")
    assert run_reval("eval", "--set", path, "--retriever", good, "--db", db).returncode == 0
    bad = serve_table({text: ["d2#0"]}, identifier="t")
    done = run_reval("eval", "--set", path, "--retriever", bad, "--db", db, "--format", "github")
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("::")] == lines[:-1]  # no forged line
    (warning,) = [line for line in lines if "lost its top-1 hit" in line]
    assert warning.startswith("::warning title=reval%3A q%3A1%2Ca lost its top-1 hit::")
    assert "question: reset password%0A::error::forged, 100%25" in warning
