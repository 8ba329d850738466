"""The values that flow through the pipeline: question forms, retriever identities,
per-question outcomes, rates, group metrics, run parameters, whole runs and the defaults.

The bottom layer beside ``errors``: it imports only the modules below it (metric keys),
so every layer above (questions, retrievers, scoring, evaluation, store, regression,
report, cli) can share these records without importing one another. Produced by scoring
and the coordinator, consumed by the store, regression and reports.

Each module holds one job:

    parameters   a run's parameters and their defaults, the scoring protocol's version
    failures     why a question has no ranking (never a miss)
    outcome      one question's outcome, its form and hard class
    metrics      rates with intervals, group metrics, latency summaries
    run          what was measured, how far a run got, the run itself
    json_shape   the run as the JSON report holds it (``RunResult.to_dict``)
"""
