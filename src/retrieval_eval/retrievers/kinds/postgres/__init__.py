"""The ``postgres`` kind: a parametrised SQL query as a retriever (see ``config``)."""
