"""A run's per-question rows and labels, written after its ``reval_runs`` row: outcomes
in batches (a big run is never encoded whole at once), each with the judgments its
question was scored against."""

from __future__ import annotations

from sqlalchemy import Connection, insert

from retrieval_eval.records.run import RunResult
from retrieval_eval.store import graded, serialize
from retrieval_eval.store.bulk import insert_rows
from retrieval_eval.store.models import label_table, outcome_table

#: Outcome rows encoded and sent per batch.
SAVE_BATCH = 5_000
COLUMNS = ("run_pk", "position", *serialize.OUTCOME_ROW_COLUMNS, "judgments")


def insert_run_rows(conn: Connection, pk: int, run: RunResult) -> None:
    """The outcome and label rows of the run stored under primary key ``pk``."""
    questions = run.questions
    for start in range(0, len(questions), SAVE_BATCH):
        batch = serialize.outcome_rows(questions[start : start + SAVE_BATCH])
        judged = graded.judgments_column(run, (outcome[0] for outcome in batch))
        rows = [
            (pk, start + i, *outcome, grades)
            for i, (outcome, grades) in enumerate(zip(batch, judged, strict=True))
        ]
        insert_rows(conn, outcome_table.name, COLUMNS, rows)
    if run.labels:
        labels = [{"run_pk": pk, "key": k, "value": v} for k, v in run.labels.items()]
        conn.execute(insert(label_table), labels)
