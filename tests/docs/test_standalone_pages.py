"""The pages that stand alone (the how-to pages) say at their top what they need, with the
install line, and use only what they make: a file, an index or a server another page
makes is a page a reader has not read. test_doc_blocks.py runs each of them in a clean
directory of its own; this reads them, so a page that leans on another fails here first,
naming what it uses."""

from __future__ import annotations

import re
import shlex

import pytest

from .doc_blocks import STANDALONE, Block, all_blocks, page_text, pages

BLOCKS = all_blocks()
STANDALONE_PAGES = [name for name, _ in pages() if name.startswith(STANDALONE)]
#: A command-line word that names a file in the working directory.
FILE_WORD = re.compile(r"^[\w.-][\w./-]*\.(?:yaml|yml|json|jsonl|toml|txt|py|tsv|csv|run|xml|gz)$")
#: The same, quoted inside a file the page writes (a test, a configuration).
QUOTED_FILE = re.compile(
    r"[\"']([\w.-][\w./-]*\.(?:yaml|yml|json|jsonl|toml|txt|tsv|csv|run))[\"']"
)
#: A retriever spec that names an index folder or a run file in the working directory.
LOCAL_SPEC = re.compile(r"(?<![\w/])(?:bm25|dense|run):([\w.-][\w./-]*)")
PORT = re.compile(r"127\.0\.0\.1:(\d+)")
#: Options (and the redirection) whose value is a file or folder the command writes.
WRITES = {"--out", "--output", "--write-moved", "--trec-run", "--qrels", ">", "-o"}
#: Folders of the checkout every page may read (the doc test links them).
CHECKOUT = ("src/", "examples/", "proto/")
NEEDS = "What you need:"


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def used_but_not_made(blocks: list[Block]) -> list[str]:
    """What a page's run blocks and files (``blocks``) use that the page does not make
    before: a file, an index folder, a module to import, a server on a port."""
    made = {b.argument for b in blocks if b.kind == "file"}
    served = {p for b in blocks if b.kind == "file" for p in PORT.findall(b.body)}
    lacking: list[str] = []
    for block in (b for b in blocks if b.kind == "run"):
        for command in block.commands():
            words = _words(command)
            if words[-1:] == ["&"]:  # a server the page starts: every port it names
                served.update(re.findall(r"\b\d{4,5}\b", command))
            if words[:1] == ["cp"] and len(words) == 3:
                made.add(words[2])
            for before, word in zip(["", *words], words, strict=False):
                if before in WRITES:
                    made.add(word.rstrip("/"))
                    continue
                spec = LOCAL_SPEC.fullmatch(word)
                name = spec[1] if spec else word if FILE_WORD.match(word) else None
                if name and not name.startswith(CHECKOUT) and name not in made:
                    lacking.append(f"{block.where}: {word}")
            for module in re.findall(r"\bimport ([\w, ]+)", command):
                for name in (m.strip() + ".py" for m in module.split(",")):
                    if name in ALL_FILES and name not in made:
                        lacking.append(f"{block.where}: import of {name}")
            lacking += [
                f"{block.where}: a server at 127.0.0.1:{port}"
                for port in PORT.findall(command)
                if port not in served
            ]
    for block in (b for b in blocks if b.kind == "file"):
        for name in QUOTED_FILE.findall(block.body) + LOCAL_SPEC.findall(block.body):
            if not name.startswith(CHECKOUT) and name not in made:
                lacking.append(f"{block.where} ({block.argument}): {name}")
    return lacking


ALL_FILES = {b.argument for b in BLOCKS if b.kind == "file"}


def needs_statement(page: str) -> str:
    """The first paragraph after the page's title."""
    text = page_text(page)
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    return " ".join(body.strip().split("\n\n", 1)[0].split())


def test_there_are_pages_that_stand_alone() -> None:
    assert len(STANDALONE_PAGES) >= 10, STANDALONE_PAGES


@pytest.mark.parametrize("page", STANDALONE_PAGES)
def test_the_page_says_first_what_it_needs(page: str) -> None:
    first = needs_statement(page)
    assert first.startswith(NEEDS), f"{page}: its first paragraph is not {NEEDS!r}: {first!r}"
    assert "pip install" in first, f"{page}: what it needs has no install line: {first!r}"


@pytest.mark.parametrize("page", STANDALONE_PAGES)
def test_the_page_uses_only_what_it_makes(page: str) -> None:
    lacking = used_but_not_made([b for b in BLOCKS if b.page == page])
    assert not lacking, f"{page} uses what it does not make: {lacking}"


def test_the_check_sees_a_page_that_leans_on_another() -> None:
    """The reading itself: a file, an index and a server from elsewhere are each found,
    and what the block makes is not."""
    text = (
        "$ reval eval --set my-set.yaml --retriever bm25:example-index\n"
        "$ reval check-retriever grpc://127.0.0.1:50051\n"
        "$ python -c 'import my_retriever'\n"
        "$ reval bm25 index src/retrieval_eval/example_data/corpus.jsonl --out mine\n"
        "$ reval eval --set src/retrieval_eval/example_data/questions.yaml --retriever bm25:mine\n"
        "$ reval serve proc --config proc.toml --address 127.0.0.1:50058 &\n"
        "$ reval check-retriever grpc://127.0.0.1:50058\n"
    )
    proc = Block("how-to/x.md", 1, "toml", "[retrievers.proc]\n", "file", "proc.toml")
    found = used_but_not_made([proc, Block("how-to/x.md", 3, "console", text, "run", "")])
    assert found == [
        "how-to/x.md:3: my-set.yaml",
        "how-to/x.md:3: bm25:example-index",
        "how-to/x.md:3: a server at 127.0.0.1:50051",
        "how-to/x.md:3: import of my_retriever.py",
    ]
