"""The embedders this plugin ships (entry points in ``retrieval_eval.embedders``)."""
