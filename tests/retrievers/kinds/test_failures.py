"""Every kind, broken the ways the contract names (an endpoint down, 401, an answer that is
not JSON, an ids path that finds nothing, a process that exits, an id of the wrong type, a
retriever that raises), measured by ``reval eval`` as a user would: each question is an
error of the matching kind, none is scored as a miss, the run is incomplete and the exit
code 3. Real local servers and processes; children run under the offline guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.cosine import DIMENSIONS
from support.env import installed
from support.http_servers import ScriptedServer, json_answer
from support.offline import sitecustomize

from retrieval_eval.example_data import questions_path
from retrieval_eval.questions.loading import load_question_set

REVAL = str(Path(sys.executable).parent / "reval")
QUESTIONS = len(load_question_set(questions_path()).questions)

HTTP = """[retrievers.broken]
kind = "http"
url = "{url}/docs/_search"
body = { query = { match = { text = "{question}" } }, size = "{limit}" }
ids = "hits.hits[*]._id"
"""
COMMAND = """[retrievers.broken]
kind = "command"
command = ["{python}", "-c", {script}]
"""
POSTGRES = """[retrievers.broken]
kind = "postgres"
dsn = "postgresql://reval@127.0.0.1:1/none"
query = "SELECT id FROM docs WHERE :question <> '' LIMIT :limit"
"""
QDRANT = f"""[retrievers.broken]
kind = "qdrant"
url = "{{url}}"
collection = "pages"
id_key = "doc_id"
embedder = "wordllama"
embedder_options = {{ dimensions = {DIMENSIONS} }}
"""
FACTORY = """[retrievers.broken]
kind = "{kind}"
factory = "broken_factories:{function}"
pythonpath = "{folder}"
id_key = "doc_id"
"""
FACTORIES = """
class Document:  # what both frameworks' objects look like to the kinds: metadata, a score
    def __init__(self, doc_id):
        self.metadata = {"doc_id": doc_id}
        self.score = 1.0

class Raising:
    async def ainvoke(self, question):
        raise ConnectionError("vector store unreachable")

class WrongIds:
    def invoke(self, question):
        return [Document(1.5)]
    retrieve = invoke

def raising():
    return Raising()

def wrong_ids():
    return WrongIds()
"""


def script(body: str) -> str:
    """A JSON-lines process as a TOML string: the program text of ``python -c``."""
    return json.dumps("import json, sys\nfor line in sys.stdin:\n" + body)


#: name -> (answer of the local HTTP server or None, reval.toml template, error kinds)
CASES: dict[str, tuple[Callable[..., tuple[int, bytes]] | None, str, set[str]]] = {
    "http 401": (lambda r: json_answer({"error": "no"}, 401), HTTP, {"unauthenticated"}),
    "http not JSON": (lambda r: (200, b"<html>a proxy page</html>"), HTTP, {"contract"}),
    "http ids path finds nothing": (lambda r: json_answer({"took": 1}), HTTP, {"contract"}),
    "command process exits": (
        None,
        COMMAND.replace("{script}", script("    sys.exit(4)\n")),
        {"unavailable"},
    ),
    "command id not a string": (
        None,
        COMMAND.replace(
            "{script}",
            script(
                "    answer = {'id': json.loads(line)['id'], 'results': [{'document_id': 42}]}\n"
                "    print(json.dumps(answer), flush=True)\n"
            ),
        ),
        {"contract"},
    ),
    "postgres server down": (None, POSTGRES, {"unavailable"}),
    "qdrant 401": (
        lambda r: json_answer({"status": {"error": "no"}}, 401),
        QDRANT,
        {"unauthenticated"},
    ),
    "langchain raises": (None, FACTORY.replace("{kind}", "langchain"), {"internal"}),
    "llamaindex id not an id": (None, FACTORY.replace("{kind}", "llamaindex"), {"contract"}),
}


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[ScriptedServer | None]:
    answer = CASES[request.node.callspec.params["case"]][0]
    if answer is None:
        yield None
        return
    with ScriptedServer(answer) as running:
        yield running


@pytest.mark.parametrize("case", list(CASES))
def test_every_question_is_an_error_of_its_kind_never_a_miss(
    case: str, server: ScriptedServer | None, tmp_path: Path
) -> None:
    needs = {
        "langchain": "langchain_core",
        "llamaindex": "llama_index.core",
        "qdrant": "qdrant_client",
    }
    module = needs.get(case.split()[0])
    if module is not None and not installed(module):
        pytest.skip(f"{module} is not installed")
    _, template, kinds = CASES[case]
    (tmp_path / "broken_factories.py").write_text(FACTORIES)
    config = tmp_path / "reval.toml"
    config.write_text(
        template.replace("{url}", server.url if server else "")
        .replace("{python}", sys.executable)
        .replace("{folder}", str(tmp_path))
        .replace("{function}", "raising" if case.endswith("raises") else "wrong_ids")
    )
    site = tmp_path / "offline-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(sitecustomize(tmp_path / "refused.log"))
    done = subprocess.run(
        [REVAL, "eval", "--config", str(config), "--set", str(questions_path()),
         "--retriever", "broken", "--keep-asking", "--no-save", "--format", "json"],
        capture_output=True, text=True, timeout=180,
        env={**os.environ, "REVAL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert not (tmp_path / "refused.log").exists()
    [run] = json.loads(done.stdout)["runs"]
    assert run["state"] == "incomplete"
    assert (run["metrics"]["errors"], run["metrics"]["count"]) == (QUESTIONS, 0)
    assert {q["error"]["kind"] for q in run["questions"]} == kinds
    # Unscored: neither a hit nor a miss.
    assert {(q["top1_hit"], q["top3_hit"]) for q in run["questions"]} == {(None, None)}
