"""The ``http`` kind: a JSON search endpoint reached over HTTP (see ``config``)."""
