"""Many runs side by side, a set × retriever's history, and rank overlap between runs.

``compare`` (``compare_runs``), ``history`` (``build_history``), ``overlap`` (Jaccard and
rank-biased overlap), ``results`` (the records they return).
"""
