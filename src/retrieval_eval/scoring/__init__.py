"""The scoring protocol and metrics: from a ranked list of result ids to hits and rates.

Pure functions, no I/O: ``protocol`` turns one response into a ``QuestionOutcome``;
``metrics`` aggregates outcomes into ``GroupMetrics`` (intervals from ``retrieval_eval.stats``),
through ``tally`` (outcomes counted by distinct row, summed exactly) and ``ranks`` (one
question's rank figures).
"""
