"""The pages say what the code does, checked from the code's side: the reference pages
list every key reval.toml accepts, every key of a real JSON report and every public API
name; every path of the repository the pages name exists; the README's links resolve."""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from pathlib import Path

import pytest
from support.env import REPO_ROOT

from .doc_blocks import README, page_text, pages

#: Top-level folders of the repository: a code span starting with one is a path in it.
REPO_FOLDERS = (
    "src/", "tests/", "tools/", "benchmarks/", "examples/", "plugins/", "proto/", "gen/"
)  # fmt: skip
#: A placeholder in a span (a version tag, a name to fill in) makes it no path.
PLACEHOLDER = re.compile(r"X\.Y\.Z|\b(NAME|DIR|PATH)\b")


def test_every_repository_path_the_pages_name_exists() -> None:
    named = {
        (name, span)
        for name, path in pages()
        for span in re.findall(r"`([^`\s]+)`", path.read_text(encoding="utf-8"))
        if span.startswith(REPO_FOLDERS) and "*" not in span and not PLACEHOLDER.search(span)
    }
    assert len(named) > 20  # the map in contributing.md alone names more
    missing = sorted(f"{name}: {span}" for name, span in named if not (REPO_ROOT / span).exists())
    assert not missing, f"paths named in the docs that do not exist: {missing}"


def test_the_readme_links_resolve() -> None:
    """On the repository's front page, links are paths into the checkout (docs/...)."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t.split("#", 1)[0] for t in targets if "://" not in t]
    assert any(t.startswith("docs/") and t.endswith(".png") for t in local)  # the picture
    missing = [t for t in local if t and not (REPO_ROOT / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_api_page_renders_every_public_name() -> None:
    import retrieval_eval

    rendered = set(re.findall(r"^::: retrieval_eval\.(\w+)$", page_text("reference/api.md"), re.M))
    public = set(retrieval_eval.__all__) - {"__version__"}
    assert public - rendered == set(), f"public names missing from api.md: {public - rendered}"
    assert rendered - public == set(), f"api.md renders non-public names: {rendered - public}"


# --- reval.toml: every key the readers accept is in reference/config.md --------------------


def config_sections() -> dict[str, str]:
    """The page's sections by heading (any level), each with its text up to the next one."""
    text = page_text("reference/config.md")
    parts = re.split(r"^#{2,4} (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def documented_keys(section: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z0-9_]+)` \|", config_sections()[section], re.M))


def _kind_keys() -> list[tuple[str, str, tuple[str, ...]]]:
    from retrieval_eval.retrievers.kinds.registry import KINDS

    return [
        (f'`kind = "{kind}"`', kind, tuple(importlib.import_module(module).KEYS))
        for kind, module in KINDS.items()
    ]


def test_every_retriever_kind_has_its_section() -> None:
    from retrieval_eval.retrievers.kinds.registry import KINDS

    sections = config_sections()
    missing = [kind for kind in KINDS if f'`kind = "{kind}"`' not in sections]
    assert not missing, f"reference/config.md has no section for kind(s) {missing}"


@pytest.mark.parametrize(("section", "kind", "keys"), _kind_keys(), ids=lambda v: str(v))
def test_every_key_of_a_kind_is_documented(section: str, kind: str, keys: tuple[str, ...]) -> None:
    missing = set(keys) - documented_keys(section)
    assert not missing, f"reference/config.md, {section}: keys not documented: {missing}"


def test_every_key_of_the_other_tables_is_documented() -> None:
    from retrieval_eval import pytest_plugin
    from retrieval_eval.labelling.llm.accept import AcceptRule
    from retrieval_eval.regression import gate_config
    from retrieval_eval.retrievers import config
    from retrieval_eval.retrievers.fusion import config as fusion
    from retrieval_eval.retrievers.kinds.base import COMMON_KEYS
    from retrieval_eval.retrievers.rerank import config as rerank

    expected = {
        "gRPC address (`address`)": set(config.KEYS),
        "Fusion (`fuse`)": set(fusion.KEYS),
        "Rerank (`rerank`)": set(rerank.COMMON_KEYS)
        | set(rerank.EMBEDDING_KEYS)
        | set(rerank.HTTP_KEYS),
        "Kinds (`kind`)": set(COMMON_KEYS),
        "`[pytest]`": set(pytest_plugin.KEYS),
        "`[gate]`": set(gate_config.KEYS),
        "`[labels]`": set(AcceptRule.KEYS),
    }
    for section, keys in expected.items():
        missing = keys - documented_keys(section)
        assert not missing, f"reference/config.md, {section}: keys not documented: {missing}"
    tables = {t for t in config.KNOWN_TABLES}
    assert {f"`[{t}]`" if t != "retrievers" else "`[retrievers.NAME]`" for t in tables} <= set(
        config_sections()
    )


# --- the JSON report: every key of a real one is in reference/json-report.md --------------


class Fixed:
    """Answers from a table: the first run finds every page, the second misses one."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers

    def retrieve(self, question: str, limit: int) -> list[str]:
        return self.answers[question][:limit]


def _keys(value: object, found: set[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(re.sub(r"@\d+$", "@K", str(key)))
            _keys(inner, found)
    elif isinstance(value, list):
        for inner in value:
            _keys(inner, found)


def test_every_key_of_a_real_json_report_is_documented(tmp_path: Path) -> None:
    import json

    from retrieval_eval import (
        Form,
        GoldenQuestion,
        GoldenQuestionSet,
        evaluate,
        judge_and_save,
        render,
    )
    from retrieval_eval.regression.unjudged import SetJudgments

    questions = tuple(
        GoldenQuestion(f"q{n}", f"question {n}?", form, (f"page-{n}",), hard_class="normal")
        for n, form in enumerate((Form.MATCH, Form.GAP, Form.MATCH, Form.GAP))
    )
    # one question judged beyond its expected id: the report's ``judged`` keys too
    graded = replace(
        questions[0], judgments=((questions[0].expected_document_ids[0], 2), ("faq", 0))
    )
    question_set = GoldenQuestionSet("json-keys", (graded, *questions[1:]))
    good = {q.question: [q.expected_document_ids[0], "faq"] for q in questions}
    worse = {**good, "question 0?": ["faq", "pricing", "about", "page-0"]}
    store = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    judgments = [SetJudgments.of(question_set)]  # the verdict's unjudged keys too
    for answers in (good, worse):
        (run,) = evaluate([question_set], [Fixed(answers)])
        recorded = judge_and_save(run, store=store, judgments=judgments)
    document = json.loads(render(recorded, "json"))
    assert document["runs"][0]["regression"]["flips"], "the second run should have flipped"
    assert document["runs"][0]["regression"]["unjudged"]["by_k"]
    found: set[str] = set()
    _keys(document, found)
    # Free-form mappings: their keys are data (labels, forms, classes, cutoffs), not schema.
    found -= {"normal", "MATCH", "GAP", "1", "3", "json-keys"}
    assert "by_hard_class" in document["runs"][0]["judged"]
    text = page_text("reference/json-report.md")
    missing = sorted(k for k in found if f"`{k}`" not in text and f'"{k}"' not in text)
    assert not missing, f"JSON report keys missing from reference/json-report.md: {missing}"
