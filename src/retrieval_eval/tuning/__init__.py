"""Tuning a fused retriever honestly: every member asked once per question, a grid of
fusion settings scored on the cached rankings, and k-fold cross-validation so that the
reported score is a held-out one, not the in-sample best.

``tune_fusion`` (sync) / ``atune_fusion`` (async) are the entry points; ``reval fusion
tune`` is a thin layer over them.
"""

from retrieval_eval.tuning.tune import (
    Comparison,
    TuneOptions,
    TuningResult,
    atune_fusion,
    tune_fusion,
)

__all__ = ["Comparison", "TuneOptions", "TuningResult", "atune_fusion", "tune_fusion"]
