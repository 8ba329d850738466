"""The ``llamaindex`` kind over llama-index-core's real in-memory VectorStoreIndex, fed
wordllama through ``EmbedderEmbedding``, from a factory module written here: ``reval eval``
gives the figures of a plain numpy cosine ranking; a bad factory is a configuration error,
a failing retriever or a node without the id key a question error, never a miss.

llama-index-core may download NLTK and tiktoken data on first use: every test here runs
under a guard that refuses (and records) any non-loopback connection, in this process and
in the ``reval`` processes it starts, with the caches pointed at a temporary folder."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cosine import DIMENSIONS, Reference, reference
from support.env import installed
from support.offline import Guard, sitecustomize

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverInternal,
    RetrieverTimeout,
)
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.retrievers.resolve import open_retriever

# Found, not imported: importing llama_index.core takes seconds, which every collection of
# the suite would pay; the tests import it through the kind.
if not installed("llama_index.core"):
    pytest.skip("llama-index-core is not installed", allow_module_level=True)
REVAL = str(Path(sys.executable).parent / "reval")

FACTORY = f"""
import json
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import NodeWithScore, TextNode
from retrieval_eval.example_data import corpus_path
from retrieval_eval.retrievers.kinds.llamaindex.embeddings import EmbedderEmbedding

def make():
    rows = [json.loads(line) for line in corpus_path().read_text().splitlines() if line]
    nodes = [
        TextNode(text=r["title"] + " " + r["text"], metadata={{"doc_id": r["_id"]}},
                 excluded_embed_metadata_keys=["doc_id"])
        for r in rows
    ]
    embedding = EmbedderEmbedding.load("wordllama", {{"dimensions": {DIMENSIONS}}})
    return VectorStoreIndex(nodes, embed_model=embedding).as_retriever(similarity_top_k=3)

def node(doc_id, score):
    return NodeWithScore(node=TextNode(text="t", metadata={{"doc_id": doc_id}}), score=score)

class Scored:
    def retrieve(self, question):
        return [node("a", 2.5), node(7, 1)]

def scored():
    return Scored()

class SomeScored:
    def retrieve(self, question):
        return [node("a", 2.5), node("b", None)]

def some_scored():
    return SomeScored()

class Broken:
    async def aretrieve(self, question):
        raise RuntimeError("index offline")

class Slow:
    async def aretrieve(self, question):
        import asyncio
        await asyncio.Event().wait()  # never answers

def slow():
    return Slow()

def broken():
    return Broken()

def not_a_retriever():
    return 42

def failing():
    raise OSError("no such index")
"""


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    """No connection leaves the machine during the test, and the caches llama-index-core
    and NLTK would fill are a fresh temporary folder."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("LLAMA_INDEX_CACHE_DIR", str(cache / "llama_index"))
    monkeypatch.setenv("NLTK_DATA", str(cache / "nltk"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    guard = Guard().install()
    try:
        yield guard
    finally:
        guard.uninstall()
    assert guard.refused == [], f"the test tried to reach the network: {guard.refused}"


@pytest.fixture(scope="module")
def dense() -> Reference:
    return reference()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("llamaindex")
    (path / "li_factories.py").write_text(FACTORY, encoding="utf-8")
    return path


def entry(folder: Path, tmp_path: Path, factory: str = "make", extra: str = "") -> Path:
    """An entry for ``li_factories:factory``; reval's limit is set as "make"'s top k."""
    limit = 'limit_attribute = "similarity_top_k"\n' if factory == "make" else ""
    path = tmp_path / "reval.toml"
    path.write_text(
        f'[retrievers.index]\nkind = "llamaindex"\nfactory = "li_factories:{factory}"\n'
        f'pythonpath = "{folder}"\nid_key = "doc_id"\n{limit}{extra}',
        encoding="utf-8",
    )
    return path


def run_reval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``reval ARGS`` in a child guarded like this process: its refusals land in a log the
    caller checks with ``refused_by_children``."""
    site = tmp_path / "offline-site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "REVAL_HOME": str(tmp_path / "home")}
    return subprocess.run([REVAL, *args], capture_output=True, text=True, timeout=180, env=env)


def refused_by_children(tmp_path: Path) -> list[str]:
    log = tmp_path / "refused.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_guard_refuses_and_records_a_connection_that_would_leave(tmp_path: Path) -> None:
    """The guard could not pass a test by guarding nothing: in a child interpreter a
    lookup of a public name and a connection to a public address are refused and logged,
    a loopback connection is not."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    code = (
        "import socket\n"
        "for attempt in (lambda: socket.getaddrinfo('pypi.org', 443),\n"
        "                lambda: socket.socket().connect(('192.0.2.1', 80))):\n"
        "    try:\n"
        "        attempt()\n"
        "    except OSError as e:\n"
        "        print(e)\n"
        "server = socket.create_server(('127.0.0.1', 0))\n"
        "socket.create_connection(server.getsockname(), timeout=5).close()\n"
        "print('loopback ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "offline test: refused name lookup of 'pypi.org'" in done.stdout
    assert "offline test: refused connection to ('192.0.2.1', 80)" in done.stdout
    assert done.stdout.endswith("loopback ok\n")
    assert refused_by_children(tmp_path) == [
        "name lookup of 'pypi.org'",
        "connection to ('192.0.2.1', 80)",
    ]


def test_reval_eval_gives_the_figures_of_a_numpy_cosine_ranking(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    done = run_reval(
        tmp_path, "eval", "--config", str(entry(folder, tmp_path)), "--set",
        str(questions_path()), "--retriever", "index", "--format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert refused_by_children(tmp_path) == []
    [run] = json.loads(done.stdout)["runs"]
    assert run["retriever"]["provenance"]["pipeline"] == "llamaindex li_factories:make"
    expected = dense.hit_rates(run["parameters"]["limit"])
    assert run["metrics"]["top1_hit_rate"] == pytest.approx(expected["top1_hit_rate"])
    assert run["metrics"]["top3_hit_rate"] == pytest.approx(expected["top3_hit_rate"])


def test_every_ranking_is_the_cosine_ranking_at_reval_s_limit(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    questions = load_question_set(questions_path())
    [run] = evaluate([questions], ["index"], config_path=entry(folder, tmp_path))
    assert run.complete and run.retriever.pipeline == "llamaindex li_factories:make"
    limit = run.parameters.limit
    assert limit > 3  # the factory's own similarity_top_k=3 is overridden by reval's limit
    for question, outcome in zip(questions.questions, run.questions, strict=True):
        ids, scores = dense.ranking(question.question, limit)
        assert outcome.raw_ids == tuple(ids)
        assert outcome.raw_scores == pytest.approx(tuple(scores), abs=1e-5)


async def test_concurrent_questions_with_different_limits_keep_their_own(
    folder: Path, tmp_path: Path, dense: Reference
) -> None:
    retriever = open_retriever("index", config_path=entry(folder, tmp_path))
    question = "restore a deleted file"
    try:
        rankings = await asyncio.gather(
            *(retriever.retrieve(question, limit) for limit in (2, 7, 2, 5, 7))
        )
    finally:
        await retriever.close()
    for limit, ranking in zip((2, 7, 2, 5, 7), rankings, strict=True):
        assert ranking.document_ids == tuple(dense.ranking(question, limit)[0])


async def ask(path: Path) -> Ranking:
    retriever = open_retriever("index", config_path=path)
    try:
        return await retriever.retrieve("restore a deleted file", 5)
    finally:
        await retriever.close()


async def test_a_sync_retriever_with_scores(folder: Path, tmp_path: Path) -> None:
    ranking = await ask(entry(folder, tmp_path, "scored"))
    assert ranking.document_ids == ("a", "7")
    assert ranking.scores == (2.5, 1.0)


async def test_scores_on_some_nodes_only_is_a_contract_error(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverContractError, match="1 of 2 nodes have a score"):
        await ask(entry(folder, tmp_path, "some_scored"))


async def test_a_missing_id_key_is_a_contract_error_naming_it(folder: Path, tmp_path: Path) -> None:
    path = entry(folder, tmp_path).read_text().replace('"doc_id"', '"id"')
    (tmp_path / "reval.toml").write_text(path)
    with pytest.raises(RetrieverContractError, match="no metadata key 'id'; keys: \\['doc_id'\\]"):
        await ask(tmp_path / "reval.toml")


async def test_a_retriever_past_its_deadline_is_a_timeout(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverTimeout, match=r"no answer within 0\.2 s"):
        await ask(entry(folder, tmp_path, "slow", "timeout = 0.2\n"))


async def test_a_failing_retriever_is_an_internal_error(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(RetrieverInternal, match="RuntimeError: index offline"):
        await ask(entry(folder, tmp_path, "broken"))


def test_a_failing_retriever_in_eval_is_errors_and_exit_3_never_misses(
    folder: Path, tmp_path: Path
) -> None:
    done = run_reval(
        tmp_path, "eval", "--config", str(entry(folder, tmp_path, "broken")), "--set",
        str(questions_path()), "--retriever", "index", "--no-save", "--keep-asking",
        "--format", "json",
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    [report] = json.loads(done.stdout)["runs"]
    assert report["state"] == "incomplete"
    assert (report["metrics"]["errors"], report["metrics"]["count"]) == (23, 0)
    assert {q["error"]["kind"] for q in report["questions"]} == {"internal"}


@pytest.mark.parametrize(
    ("factory", "extra", "message"),
    [
        ("nothing_here", "", "key 'factory': .*has no function 'nothing_here'"),
        ("not_a_retriever", "", "key 'factory': .*returned int, which has neither aretrieve"),
        ("failing", "", r"key 'factory': li_factories:failing\(\) failed: OSError: no such"),
        ("scored", 'limit_attribute = "top_k"\n', "key 'limit_attribute': Scored has no attr"),
    ],
)
def test_a_bad_factory_is_a_config_error(
    folder: Path, tmp_path: Path, factory: str, extra: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        open_retriever("index", config_path=entry(folder, tmp_path, factory, extra))


def test_an_unimportable_module_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "reval.toml"
    path.write_text(
        '[retrievers.index]\nkind = "llamaindex"\nfactory = "no_such_module:make"\n'
        'id_key = "doc_id"\n'
    )
    done = run_reval(
        tmp_path, "eval", "--config", str(path), "--set", str(questions_path()),
        "--retriever", "index",
    )  # fmt: skip
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "[retrievers.index]: key 'factory': cannot import 'no_such_module'" in line


def test_the_version_follows_the_factory_module(folder: Path, tmp_path: Path) -> None:
    """An edited factory module is a new variant of the same lineage."""
    from retrieval_eval.retrievers.kinds.base import describe_kind
    from retrieval_eval.retrievers.resolve import KindSpec, resolve

    module = tmp_path / "mod" / "li_mod.py"
    module.parent.mkdir()
    module.write_text("def make(): pass\n")
    path = tmp_path / "reval.toml"
    path.write_text(
        '[retrievers.index]\nkind = "llamaindex"\nfactory = "li_mod:make"\n'
        'pythonpath = "mod"\nid_key = "doc_id"\n'
    )

    def described() -> tuple[str, str]:
        spec = resolve("index", config_path=path)
        assert isinstance(spec, KindSpec)
        description = describe_kind(spec.config)
        return description.identifier, description.version

    before = described()
    module.write_text("def make(): return None\n")
    after = described()
    assert before[0] == after[0] == "index"
    assert before[1] != after[1] and before[1].startswith("llamaindex ")


def test_reading_an_entry_does_not_import_llama_index(folder: Path, tmp_path: Path) -> None:
    """Only opening a llamaindex entry imports llama_index: listing it does not."""
    code = (
        "import sys\n"
        "from retrieval_eval.cli.main import main\n"
        "try:\n"
        f"    main(['retrievers', 'list', '--config', {str(entry(folder, tmp_path))!r}])\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "print(sorted(m for m in sys.modules if m.startswith('llama_index.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "llamaindex li_factories:make" in done.stdout
    assert done.stdout.strip().endswith("[]")


def test_importing_llama_index_writes_nothing_outside_its_cache_folders(
    folder: Path, tmp_path: Path
) -> None:
    """A child process imports llama_index.core, builds the index and retrieves through
    the kind with HOME and the caches in a temporary folder: llama-index-core's own
    package folder (where its bundled NLTK and tiktoken caches live) is left unchanged,
    and whatever it writes lands in that temporary folder."""
    import importlib.util

    spec = importlib.util.find_spec("llama_index.core")
    assert spec is not None and spec.origin is not None
    package = Path(spec.origin).parent

    def snapshot() -> dict[str, tuple[int, int]]:
        return {
            str(p.relative_to(package)): (p.stat().st_mtime_ns, p.stat().st_size)
            for p in package.rglob("*")
            if "__pycache__" not in p.parts
        }

    before = snapshot()
    home = tmp_path / "home"
    code = (
        "import asyncio\n"
        "from retrieval_eval.retrievers.resolve import open_retriever\n"
        "async def main():\n"
        f"    r = open_retriever('index', config_path={str(entry(folder, tmp_path))!r})\n"
        "    print(len((await r.retrieve('restore a deleted file', 3)).document_ids))\n"
        "    await r.close()\n"
        "asyncio.run(main())\n"
    )
    site = tmp_path / "offline-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("NLTK_DATA", "LLAMA_INDEX_CACHE_DIR")},
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TMPDIR": str(tmp_path),
        "PYTHONPATH": str(site),
    }
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=180, env=env, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"
    assert refused_by_children(tmp_path) == []
    assert snapshot() == before
    written = sorted(str(p.relative_to(home)) for p in home.rglob("*")) if home.exists() else []
    assert all(w.startswith(".cache") for w in written), written


def test_without_llama_index_the_error_names_the_pip_command(folder: Path, tmp_path: Path) -> None:
    # A real interpreter in which llama_index.core cannot be imported (a None entry in
    # sys.modules makes the import fail, as for an absent package).
    script = (
        "import sys; sys.modules['llama_index.core'] = None\n"
        "from retrieval_eval.cli.main import main\n"
        f"sys.argv = ['reval', 'eval', '--config', {str(entry(folder, tmp_path))!r}, "
        f"'--set', {str(questions_path())!r}, '--retriever', 'index']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.endswith(
        "[retrievers.index]: llama-index-core is not installed; "
        "pip install 'retrieval-eval[llamaindex]'"
    )
