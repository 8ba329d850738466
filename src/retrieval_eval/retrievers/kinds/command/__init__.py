"""The ``command`` kind: a long-running process speaking JSON lines (see ``config``)."""
