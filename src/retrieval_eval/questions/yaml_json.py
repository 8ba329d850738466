"""Reading a YAML (safe loading only) or JSON set: one document, parsed whole, with the
line of every question and the keys given twice (``RawSet``)."""

from __future__ import annotations

import json
from typing import Any

from retrieval_eval.questions.formats import RawSet
from retrieval_eval.questions.jsondecode import DuplicateKeys, decode_checked, keys_in_set
from retrieval_eval.questions.locate import JsonLines, YamlLines, duplicate_yaml_keys
from retrieval_eval.questions.read_problems import beyond, syntax


def _split_document(data: Any) -> tuple[dict[str, Any], Any]:
    if isinstance(data, list):
        return {}, data
    if isinstance(data, dict):
        header = dict(data)
        return header, header.pop("questions", None)
    return {"": data}, None  # the validator reports the wrong top-level type


def parse_yaml(text: str, source: str, default_name: str) -> RawSet:
    # PyYAML only for a YAML set
    import yaml  # only when a YAML set is read: a JSON or JSONL one never loads it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        what = e.problem or e.context or "syntax error"
        started = e.context_mark
        if e.problem and e.context and started is not None and started.line + 1 != line:
            what = f"{what} ({e.context} at line {started.line + 1})"
        problem = syntax(source, line, "YAML", what, text)
        return RawSet(source, default_name, {}, None, problems=[problem])
    except yaml.YAMLError as e:
        return RawSet(source, default_name, {}, None, problems=[syntax(source, None, "YAML", e)])
    except (ValueError, RecursionError) as e:
        return RawSet(source, default_name, {}, None, problems=[beyond(source, "YAML", e, text)])
    finally:
        loader.dispose()
    header, questions = _split_document(data)
    locator = YamlLines(root)
    dups: dict[int, list[tuple[str, int | None]]] = {}
    if isinstance(root, yaml.MappingNode):
        dups[-1] = list(duplicate_yaml_keys(root))
    for index, node in enumerate(locator.items):
        found = duplicate_yaml_keys(node)
        if found:
            dups[index] = list(found)
    dups = {k: v for k, v in dups.items() if v}
    return RawSet(source, default_name, header, questions, locator, duplicate_keys=dups)


def parse_json(text: str, source: str, default_name: str) -> RawSet:
    try:
        data = decode_checked(text, keys_in_set)
    except json.JSONDecodeError as e:
        problem = syntax(source, e.lineno, "JSON", f"{e.msg} (column {e.colno})", text)
        return RawSet(source, default_name, {}, None, problems=[problem])
    except (ValueError, RecursionError) as e:
        return RawSet(source, default_name, {}, None, problems=[beyond(source, "JSON", e, text)])
    header, questions = _split_document(data)
    dups: dict[int, list[tuple[str, int | None]]] = {}
    locator = JsonLines(text)
    if isinstance(data, DuplicateKeys):
        dups[-1] = [(k, locator.header_line(k)) for k in data.duplicates]
    if isinstance(questions, list):
        for index, q in enumerate(questions):
            if isinstance(q, DuplicateKeys):
                dups[index] = [(k, locator.question_line(index)) for k in q.duplicates]
    return RawSet(source, default_name, header, questions, locator, duplicate_keys=dups)
