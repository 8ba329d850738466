"""Reading one set file of any format into a ``RawSet``: the reader is picked by suffix,
and every failure (unknown suffix, unreadable file, bad syntax) becomes its ``Problem``."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.questions.formats import FORMATS, RawSet, read_text, set_format, stem_name
from retrieval_eval.questions.jsonl import read_jsonl_file
from retrieval_eval.questions.problems import Problem
from retrieval_eval.questions.yaml_json import parse_json, parse_yaml


def read_set_file(path: Path) -> RawSet:
    """Parse one set file; every failure becomes a ``Problem`` in the result."""
    source, name = str(path), stem_name(path)
    fmt = set_format(path)
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        message = f"unknown set file type; expected one of {known} (optionally .gz)"
        return RawSet(source, name, {}, None, problems=[Problem(source, None, message)])
    if fmt == "jsonl":
        return read_jsonl_file(path, source, name)
    try:
        text = read_text(path)
    except UnicodeDecodeError as e:
        problem = Problem(source, None, f"not UTF-8 text (byte {e.start})")
        return RawSet(source, name, {}, None, problems=[problem])
    except OSError as e:
        problem = Problem(source, None, f"cannot read: {e.strerror or e}")
        return RawSet(source, name, {}, None, problems=[problem])
    parse = {"yaml": parse_yaml, "json": parse_json}[fmt]
    return parse(text, source, name)
