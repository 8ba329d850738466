"""TREC run files as retrievers: read as trec_eval ranks them, answering by the question id
the coordinator names, resolved from ``run:FILE`` or a reval.toml ``kind = "run"``, with an
identity that is the file's content."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
from pathlib import Path

import pytest

from retrieval_eval.errors import ConfigError, InputError, RetrieverRejected
from retrieval_eval.retrievers.asked import ASKED_QUESTION_ID
from retrieval_eval.retrievers.kinds.run.retriever import RunRetriever
from retrieval_eval.retrievers.kinds.run.runfile import MAX_LINE_BYTES, read_run
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.resolve import KindSpec, resolve

RUN = (
    "q1 Q0 d2 1 5.0 bm25\n"
    "q1 Q0 d10 9 5.0 bm25 trailing columns are ignored\n"  # a tie: id descending, byte-wise
    "q1 Q0 d1 2 5 bm25\n"
    "q1 Q0 d3 3 7.5e0 bm25\n"  # the rank column says 3; the score says first
    "\n"
    "q2\tQ0\td4\t1\t-1.5\tbm25\n"
    "q2 Q0 d5 2 -inf bm25\n"
    "q2 Q0 d4 3 0.5 bm25\n"  # listed twice: kept twice, scoring counts it once
)


def write_run(path: Path, text: str = RUN) -> Path:
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


@pytest.mark.parametrize("name", ["run.txt", "run.txt.gz"])
def test_rankings_are_trec_evals_score_then_id_descending(tmp_path: Path, name: str) -> None:
    run = read_run(write_run(tmp_path / name))
    assert run.rankings == {
        "q1": (("d3", "d2", "d10", "d1"), (7.5, 5.0, 5.0, 5.0)),
        "q2": (("d4", "d4", "d5"), (0.5, -1.5, float("-inf"))),
    }
    assert run.sha256 == "sha256:" + hashlib.sha256(RUN.encode()).hexdigest()
    assert (run.tags, run.lines) == (("bm25",), 7)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("q1 Q0 d1 1 2.0\n", "2: expected 6 columns (topic Q0 document rank score tag), got 5"),
        ("q1 Q0 d1 1 high tag\n", "2: score 'high' is not a number"),
        ("q1 Q0 d1 1 nan tag\n", "2: score is NaN, which has no rank"),
        (f"q1 Q0 {'x' * 5000} 1 1 tag\n", "2: document id of 5,000 bytes, over the retriever "
         "contract's 4,096-byte limit"),
    ],
)  # fmt: skip
def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path, text: str, problem: str) -> None:
    path = write_run(tmp_path / "run.txt", "q1 Q0 d0 1 1 tag\n" + text)
    with pytest.raises(InputError) as caught:
        read_run(path)
    assert str(caught.value) == f"{path}:{problem}"


def test_hostile_bytes_are_one_line_errors(tmp_path: Path) -> None:
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"q1 Q0 d1 1 1 t\n\x00\xff\xfe\n")
    with pytest.raises(InputError, match=r"binary\.txt:2: not UTF-8 text \(byte 1 of the line\)"):
        read_run(binary)
    long = tmp_path / "long.txt.gz"
    with gzip.open(long, "wb", compresslevel=1) as f:
        f.write(b"q" * (MAX_LINE_BYTES + 10))
    with pytest.raises(InputError, match=r"long\.txt\.gz:1: line longer than 1 MiB"):
        read_run(long)
    fake = tmp_path / "fake.txt.gz"
    fake.write_bytes(b"plain text")
    with pytest.raises(InputError, match=r"fake\.txt\.gz: cannot read: not a valid gzip file"):
        read_run(fake)


async def _ask(retriever: RunRetriever, question_id: str | None, limit: int = 10) -> list[str]:
    token = ASKED_QUESTION_ID.set(question_id)
    try:
        return list((await retriever.retrieve("any text", limit)).document_ids)
    finally:
        ASKED_QUESTION_ID.reset(token)


async def test_answers_are_looked_up_by_the_asked_question_id(tmp_path: Path) -> None:
    path = write_run(tmp_path / "run.txt")
    retriever = open_retriever(f"run:{path}")
    assert isinstance(retriever, RunRetriever)
    assert await _ask(retriever, "q1", limit=2) == ["d3", "d2"]
    assert await _ask(retriever, "q2") == ["d4", "d4", "d5"]
    assert await _ask(retriever, "q404") == []  # no line: an empty answer
    with pytest.raises(RetrieverRejected, match="answers golden questions by id"):
        await _ask(retriever, None)  # outside an evaluation (serve, check-retriever)
    with pytest.raises(RetrieverRejected, match="limit"):
        await _ask(retriever, "q1", limit=0)  # the contract's request checks, as everywhere
    await retriever.close()


async def test_the_identity_is_the_content_not_the_path(tmp_path: Path) -> None:
    async def described(spec: str, config: Path | None = None):  # type: ignore[no-untyped-def]
        retriever = open_retriever(spec, config_path=config)
        try:
            return await retriever.describe()
        finally:
            await retriever.close()

    here = await described(f"run:{write_run(tmp_path / 'a.txt')}")
    moved = await described(f"run:{write_run(tmp_path / 'b.txt.gz')}")
    regenerated = write_run(tmp_path / "c.txt", RUN + "q3 Q0 d9 1 1 bm25\n")
    changed = await described(f"run:{regenerated}")
    digest = hashlib.sha256(RUN.encode()).hexdigest()
    assert here.identifier == f"run:{tmp_path / 'a.txt'}"
    assert here.version == moved.version == f"run {digest[:12]}" != changed.version
    assert here.metadata["run.sha256"] == moved.metadata["run.sha256"] == f"sha256:{digest}"
    assert here.pipeline == "run a.txt: 2 topics, tag bm25"
    config = tmp_path / "reval.toml"
    config.write_text(
        '[retrievers.bm25-run]\nkind = "run"\npath = "a.txt"\nchunk_separator = "#"\n'
        'version = "k1=0.9"\ncorpus_revision = "c7"\n'
    )
    named = await described("bm25-run", config)
    assert (named.identifier, named.version) == ("bm25-run", f"run {digest[:12]} k1=0.9")
    assert (named.chunk_separator, named.corpus_revision) == ("#", "c7")


def test_specs_and_entries_resolve_to_the_run_kind(tmp_path: Path) -> None:
    path = write_run(tmp_path / "run.txt")
    resolved = resolve(f"run:{path}", timeout_s=2.0)
    assert isinstance(resolved, KindSpec) and resolved.config.common.kind == "run"
    assert resolved.config.path == path and resolved.display == f"run:{path}"
    with pytest.raises(InputError, match=r"--retriever run:nowhere\.txt: run file not found"):
        resolve("run:nowhere.txt")
    config = tmp_path / "reval.toml"
    config.write_text('[retrievers.r]\nkind = "run"\npath = "missing.txt"\n')
    with pytest.raises(ConfigError, match=r"\[retrievers\.r\]: key 'path': run file not found"):
        resolve("r", config_path=config)
    config.write_text('[retrievers.r]\nkind = "run"\npath = "run.txt"\nquery = "x"\n')
    with pytest.raises(ConfigError, match=r"unknown key 'query' for kind 'run'"):
        resolve("r", config_path=config)


async def test_a_topic_no_set_asked_for_is_a_warning_count(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    retriever = open_retriever(f"run:{write_run(tmp_path / 'run.txt')}")
    assert isinstance(retriever, RunRetriever)
    await retriever.close()
    assert not caplog.records  # nothing asked: nothing to say
    retriever = open_retriever(f"run:{write_run(tmp_path / 'run.txt')}")
    assert isinstance(retriever, RunRetriever)
    await asyncio.gather(_ask(retriever, "q1"), _ask(retriever, "q3"))
    await retriever.close()
    assert [r.getMessage() for r in caplog.records] == [
        f"run:{tmp_path / 'run.txt'}: 1 of 2 topics in the run file are not questions of the "
        "evaluated sets; their lines were ignored ('q2')"
    ]
