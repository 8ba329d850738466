"""Golden question sets: the model, set files, provider plugins, validation, BEIR and TREC import.

``model`` (``GoldenQuestion``, ``GoldenQuestionSet``), ``loading`` (``load_question_set``
and ``load_question_sets``: a file, a directory or a registered name), ``formats``
(``write_question_set``: YAML / JSON / JSONL by suffix, + .gz), ``beir`` (``import_beir``),
``trec`` (``import_trec``), ``judged`` (graded imports),
``registry`` (providers from the ``retrieval_eval.question_sets`` entry points),
``provider`` (the provider plugin contract), ``validation``, ``schema``.
"""
