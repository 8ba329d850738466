"""Tuning a fused retriever honestly: every member asked once per question, a grid of
fusion settings scored on the cached rankings, and k-fold cross-validation so that the
reported score is a held-out one, not the in-sample best.

``tune_fusion`` (sync) / ``atune_fusion`` (async) in ``tune`` are the entry points; ``reval fusion
tune`` is a thin layer over them.
"""
