"""Private ORM models of the run store. The schema itself is created by the migrations;
these classes describe it for queries (a test checks both agree).

Structured parts of a run (metrics, breakdowns, parameters, description) are stored as
JSON text: exact float round trip on every backend and no dialect-specific JSON quirks
(PostgreSQL's JSON rejects NaN). Columns that listings and baselines filter or sort on are
real columns. Per-question outcomes are one row each, written in bulk.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Double, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class RunRow(Base):
    __tablename__ = "reval_runs"

    pk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64), unique=True)
    set_name: Mapped[str] = mapped_column(Text)
    set_fingerprint: Mapped[str] = mapped_column(Text)
    retriever_identifier: Mapped[str] = mapped_column(Text)
    retriever_version: Mapped[str] = mapped_column(Text)
    retriever_target: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(20))
    #: ISO 8601 text, exactly as recorded (time zone included); *_ts are UTC epoch seconds
    #: for ordering.
    started_at: Mapped[str] = mapped_column(String(64))
    finished_at: Mapped[str] = mapped_column(String(64))
    started_ts: Mapped[float] = mapped_column(Double)
    finished_ts: Mapped[float] = mapped_column(Double)
    question_count: Mapped[int] = mapped_column(Integer)
    error_count: Mapped[int] = mapped_column(Integer)
    underfilled_count: Mapped[int] = mapped_column(Integer)
    top1_hit_rate: Mapped[float | None] = mapped_column(Double, nullable=True)
    top3_hit_rate: Mapped[float | None] = mapped_column(Double, nullable=True)
    pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    retriever_json: Mapped[str] = mapped_column(Text)
    parameters_json: Mapped[str] = mapped_column(Text)
    metrics_json: Mapped[str] = mapped_column(Text)
    by_form_json: Mapped[str] = mapped_column(Text)
    by_hard_class_json: Mapped[str] = mapped_column(Text)
    latency_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The verdict the run was given when saved (None: saved without a check).
    verdict_kind: Mapped[str | None] = mapped_column(String(20), nullable=True)
    baseline_run_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    verdict_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Which runs are "the same retriever" (``retrieval_eval.retrievers.lineage``):
    #: baselines, drift and pruning are per set x lineage.
    lineage: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Set when a person accepted the run as a baseline (``reval runs accept``).
    accepted_at: Mapped[str | None] = mapped_column(String(64), nullable=True)
    accepted_by: Mapped[str | None] = mapped_column(Text, nullable=True)
    accepted_reason: Mapped[str | None] = mapped_column(Text, nullable=True)

    #: Newest first (the listings' order, ``pk`` breaking ties) overall, within a set, and
    #: within a set x retriever identifier (history, baselines).
    __table_args__ = (
        Index("ix_reval_runs_started", "started_ts", "pk"),
        Index("ix_reval_runs_set_started", "set_name", "started_ts", "pk"),
        Index(
            "ix_reval_runs_set_retriever_started",
            "set_name",
            "retriever_identifier",
            "started_ts",
            "pk",
        ),
        Index("ix_reval_runs_set_lineage_started", "set_name", "lineage", "started_ts", "pk"),
    )


class LabelRow(Base):
    __tablename__ = "reval_run_labels"

    run_pk: Mapped[int] = mapped_column(
        ForeignKey("reval_runs.pk", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[str] = mapped_column(Text)

    __table_args__ = (Index("ix_reval_run_labels_key_value", "key", "value"),)


class OutcomeRow(Base):
    """One question of one run, in the run's question order (``position``)."""

    __tablename__ = "reval_outcomes"

    run_pk: Mapped[int] = mapped_column(
        ForeignKey("reval_runs.pk", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_id: Mapped[str] = mapped_column(Text)
    form: Mapped[str] = mapped_column(String(20))
    hard_class: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: JSON arrays of ids.
    expected_ids: Mapped[str] = mapped_column(Text)
    raw_ids: Mapped[str] = mapped_column(Text)
    ranked_ids: Mapped[str] = mapped_column(Text)
    #: "k:0|1" pairs, comma separated, e.g. "1:0,3:1"; empty when the retrieval failed.
    hits: Mapped[str] = mapped_column(Text)
    latency_ms: Mapped[float | None] = mapped_column(Double, nullable=True)
    error_kind: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    underfilled: Mapped[bool] = mapped_column(Boolean, default=False)
    #: JSON array of the retriever's scores, aligned with ``raw_ids`` (null where a
    #: result had none); None when the retriever gave no scores at all.
    raw_scores: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: JSON array of notes on how the answer was made (a fused retriever's skipped
    #: member); None when there are none.
    notes: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The question as asked; None for runs stored before texts were kept (migration
    #: 0005), which reports show by id alone and say so.
    question_text: Mapped[str | None] = mapped_column(Text, nullable=True)
