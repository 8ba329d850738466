"""The ``llamaindex`` kind's entries: a bad factory is a configuration error (exit 2 with
one line), the version follows the factory module, reading an entry does not import
llama_index, importing it writes nothing outside its cache folders, and without it the
error names the pip command. Offline, as ``test_llamaindex.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import kinds
from support.env import installed
from support.llamaindex_kind import entry, refused_by_children, run_reval
from support.offline import sitecustomize

from retrieval_eval.errors import ConfigError
from retrieval_eval.example_data import questions_path
from retrieval_eval.retrievers.opening import open_retriever

# Found, not imported: importing llama_index.core takes seconds, which every collection of
# the suite would pay; the tests import it through the kind.
if not installed("llama_index.core"):
    pytest.skip("llama-index-core is not installed", allow_module_level=True)


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
    from retrieval_eval.retrievers.resolve import resolve
    from retrieval_eval.retrievers.specs import KindSpec

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
        "from retrieval_eval.retrievers.opening import open_retriever\n"
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
    config = entry(folder, tmp_path)
    done = kinds.eval_without("llama_index.core", config, "index", tmp_path / "home")
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.endswith(
        "[retrievers.index]: llama-index-core is not installed; pip install 'reval-ir[llamaindex]'"
    )
