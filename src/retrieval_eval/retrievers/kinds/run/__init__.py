"""``kind = "run"`` and ``--retriever run:FILE``: a TREC run file answering by question id."""
