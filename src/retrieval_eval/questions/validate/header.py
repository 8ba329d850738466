"""Checking a set's header: its keys, format version, name, description and grading.

The header may give ``relevance_level`` (an integer >= 1) and ``grade_scale`` (``[low,
high]``, integers, 0 <= low <= high); ``pool`` and ``generated`` say how drafts were
made (``labelling``).
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.questions.did_you_mean import did_you_mean
from retrieval_eval.questions.formats import FORMAT_VERSION, HEADER_KEY
from retrieval_eval.questions.judgments import DEFAULT_LEVEL, LEVEL_KEY, MAX_GRADE, SCALE_KEY
from retrieval_eval.questions.labelling import GENERATED_KEY, POOL_KEY, check_pool
from retrieval_eval.questions.problems import Problem
from retrieval_eval.questions.validate.findings import Findings, kind
from retrieval_eval.questions.validate.keys import HEADER_KEYS, SYNONYMS


def check_header(f: Findings) -> tuple[str, str]:
    """The set's name and description; what is wrong with the header goes to ``f``."""
    raw = f.raw
    for key, line in raw.duplicate_keys.get(-1, []):
        f.problems.append(Problem(raw.source, line, f"key {key!r} given twice"))
    if "" in raw.header:
        got = kind(raw.header[""])
        f.add_header("", f"expected a mapping with a 'questions' list, got {got}")
        return raw.default_name, ""
    if POOL_KEY in raw.header:
        for message in check_pool(raw.header[POOL_KEY]):
            f.add_header(POOL_KEY, message)
    if not isinstance(raw.header.get(GENERATED_KEY, {}), dict):
        f.add_header(GENERATED_KEY, f"'{GENERATED_KEY}' must be a mapping")
    for key in raw.header:
        if key not in HEADER_KEYS:
            hint = did_you_mean(str(key), HEADER_KEYS, synonyms=SYNONYMS)
            f.add_header(key, f"unknown set key {key!r}{hint}")
    version = raw.header.get(HEADER_KEY, FORMAT_VERSION)
    if version != FORMAT_VERSION or isinstance(version, bool):
        message = f"{HEADER_KEY} is {version!r}; this reval reads version {FORMAT_VERSION}"
        f.add_header(HEADER_KEY, message)
    check_grading(f, raw.header)
    name = raw.header.get("name", raw.default_name)
    if not isinstance(name, str) or not name.strip():
        f.add_header("name", f"'name' must be a non-empty string, got {kind(name)}")
        name = raw.default_name
    description = raw.header.get("description") or ""
    if not isinstance(description, str):
        f.add_header("description", f"'description' must be a string, got {kind(description)}")
        description = ""
    return name, description


def check_grading(f: Findings, header: dict[str, Any]) -> None:
    """The set's relevance level and grade scale, when it gives them, into ``f``."""
    level = header.get(LEVEL_KEY, DEFAULT_LEVEL)
    if type(level) is not int or not 1 <= level <= MAX_GRADE:
        message = f"{LEVEL_KEY!r} must be an integer of at least 1, got {kind(level)}"
        f.add_header(LEVEL_KEY, message)
    else:
        f.level = level
    if SCALE_KEY not in header:
        return
    scale = header[SCALE_KEY]
    low, high = scale if isinstance(scale, list) and len(scale) == 2 else (None, None)
    if type(low) is not int or type(high) is not int or not 0 <= low <= high <= MAX_GRADE:
        message = f"{SCALE_KEY!r} must be [lowest, highest]: integers, 0 <= lowest <= "
        f.add_header(SCALE_KEY, f"{message}highest, got {kind(scale)}")
    else:
        f.scale = (low, high)
