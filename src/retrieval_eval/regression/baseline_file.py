"""A baseline in a file committed beside the set: ``reval runs export-baseline`` writes an
accepted run, ``reval eval --baseline-file`` judges against it with no database.

The file holds everything a verdict needs (the run's rankings and hits per question, its
figures, its set fingerprint and benchmark, its lineage) and how the run was accepted, so
that moving the baseline is a reviewed change of one file in a pull request. It holds the
run as the store does: each question's judgments (document id -> grade, in judgment
order), the IR measures' means, their convention and the relevance level, so a run read
from the file equals the stored one. Its bytes are deterministic: the same run always
exports to the same file (keys sorted, one question per line), so a diff shows what
changed.

Format version 2 added the questions' ``judgments`` column. A version 1 file (no such
column, and no measures when written before the store kept them) still loads, as what it
always meant: plain labels (each expected document at grade 1, nothing else judged).

A file that is not one (unreadable, not JSON, another format version, fields missing) is
bad input naming the file (``InputError``, exit 2).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval_eval.errors import InputError
from retrieval_eval.records.run import RunResult
from retrieval_eval.store import graded, serialize
from retrieval_eval.store.stored_run import StoredRun

FORMAT = "reval-baseline"
FORMAT_VERSION = 2
#: The versions this reval reads, each with its question columns.
_QUESTION_COLUMNS = {
    1: serialize.OUTCOME_ROW_COLUMNS,
    2: (*serialize.OUTCOME_ROW_COLUMNS, "judgments"),
}
#: ``reval_runs`` columns that hold JSON text: written as JSON values, read back as text.
_JSON_COLUMNS = ("retriever_json", "parameters_json", "metrics_json", "by_form_json",
                 "by_hard_class_json", "latency_json")  # fmt: skip
#: Columns of a stored row that are about the store, not the run.
_STORE_ONLY = ("pinned", "verdict_kind", "baseline_run_id", "verdict_json", "lineage",
               "accepted_how", "accepted_thresholds_json", "accepted_baseline")  # fmt: skip
#: Outcome columns that hold JSON arrays as text.
_JSON_OUTCOMES = frozenset(
    ("expected_ids", "raw_ids", "ranked_ids", "raw_scores", "notes", "judgments")
)


@dataclass(frozen=True, slots=True)
class BaselineFile:
    """A baseline read from a file: the run, its lineage, how it was accepted."""

    path: Path
    run: RunResult
    lineage: str
    accepted: Mapping[str, Any]

    @property
    def label(self) -> str:
        """``FILE (run ID)``, as verdicts and acceptance records name it."""
        return f"{self.path} (run {self.run.run_id})"


def baseline_document(stored: StoredRun) -> str:
    """The file's text for an accepted stored run (the caller checks it is accepted)."""
    run = stored.run
    assert run.run_id is not None
    row = serialize.run_row(run, run.run_id)
    for column in _STORE_ONLY:
        row.pop(column, None)
    for column in _JSON_COLUMNS:
        row[column] = None if row[column] is None else json.loads(row[column])
    outcomes = serialize.outcome_rows(run.questions)
    judged = graded.judgments_column(run, (values[0] for values in outcomes))
    rows = [(*values, grades) for values, grades in zip(outcomes, judged, strict=True)]
    head = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "run_id": run.run_id,
        "set_name": run.set_name,
        "set_fingerprint": run.set_fingerprint,
        "lineage": stored.lineage,
        "figures": {"questions": len(run.questions), "scored": run.metrics.count,
                    **{k: run.metrics.values[k] for k in sorted(run.metrics.values)}},
        "accepted": _accepted(stored),
        "labels": dict(sorted(run.labels.items())),
        "run": row,
        "question_columns": list(_QUESTION_COLUMNS[FORMAT_VERSION]),
    }  # fmt: skip
    text = json.dumps(head, indent=2, sort_keys=True, ensure_ascii=False)
    lines = (_line(values) for values in rows)
    body = ",\n".join(f"    {line}" for line in lines)
    return (
        f'{text[:-2]},\n  "questions": [\n{body}\n  ]\n}}\n'
        if rows
        else (f'{text[:-2]},\n  "questions": []\n}}\n')
    )


def _line(values: tuple[Any, ...]) -> str:
    decoded = [
        json.loads(v) if name in _JSON_OUTCOMES and v is not None else v
        for name, v in zip(_QUESTION_COLUMNS[FORMAT_VERSION], values, strict=True)
    ]
    return json.dumps(decoded, ensure_ascii=False, separators=(",", ":"))


def _accepted(stored: StoredRun) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if stored.accepted is not None:
        out = {"how": stored.accepted.how.value, "thresholds": stored.accepted.thresholds,
               "baseline": stored.accepted.baseline}  # fmt: skip
    if stored.acceptance is not None:
        out |= {"by": stored.acceptance.by, "at": stored.acceptance.at.isoformat(),
                "reason": stored.acceptance.reason}  # fmt: skip
    if stored.pinned and not out:
        out = {"how": "pinned"}
    return out


def read_baseline_file(path: Path) -> BaselineFile:
    """The baseline in ``path``; ``InputError`` naming the file when it is not one."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise InputError(f"{path}: cannot read the baseline file: {e.strerror or e}") from e
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError(f"{path}: not a reval baseline file (invalid JSON: {e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path}: not a reval baseline file (no \"format\": \"{FORMAT}\"); "
                         "write one with reval runs export-baseline RUN --out FILE")  # fmt: skip
    version = data.get("format_version")
    if version not in _QUESTION_COLUMNS or isinstance(version, bool):
        raise InputError(f"{path}: baseline file format version {version!r}; this reval "
                         f"reads {' and '.join(map(str, _QUESTION_COLUMNS))}: "
                         "export it again with this reval")  # fmt: skip
    try:
        run = _run(data)
        lineage = data["lineage"]
        accepted = data["accepted"]
        if not isinstance(lineage, str) or not isinstance(accepted, dict):
            raise TypeError("lineage or accepted")
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as e:
        raise InputError(f"{path}: malformed reval baseline file ({type(e).__name__}: "
                         f"{str(e)[:200]})") from None  # fmt: skip
    return BaselineFile(path, run, lineage, accepted)


def _run(data: Mapping[str, Any]) -> RunResult:
    row = dict(data["run"])
    for column in _JSON_COLUMNS:
        value = row[column]
        row[column] = None if value is None else json.dumps(value)
    row["run_id"] = data["run_id"]
    columns = _QUESTION_COLUMNS[data["format_version"]]
    if list(data["question_columns"]) != list(columns):
        raise ValueError(f"question columns {data['question_columns']!r}")
    width = len(serialize.OUTCOME_ROW_COLUMNS)
    outcomes, judged = [], {}
    for values in data["questions"]:
        encoded = _row(values, columns)
        outcome = serialize.outcome_from_tuple(encoded[:width])
        outcomes.append(outcome)
        grades = graded.decode_judgments(encoded[width]) if len(encoded) > width else None
        if grades is not None:  # a version 1 file, or plain labels: None
            judged[outcome.question_id] = grades
    labels = data.get("labels") or {}
    return serialize.run_from_row(row, {str(k): str(v) for k, v in labels.items()}, outcomes,
                                  judged)  # fmt: skip


def _row(values: list[Any], columns: tuple[str, ...]) -> tuple[Any, ...]:
    if not isinstance(values, list) or len(values) != len(columns):
        raise ValueError("a question row of the wrong length")
    encoded = [
        json.dumps(v, ensure_ascii=False) if name in _JSON_OUTCOMES and v is not None else v
        for name, v in zip(columns, values, strict=True)
    ]
    return tuple(encoded)
