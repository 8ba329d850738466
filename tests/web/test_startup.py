"""What the viewer loads to start: only what its pages need. The judging desk's set-file
and corpus readers (YAML round-tripping) load with the first judging request."""

from __future__ import annotations

import subprocess
import sys

START = """
import sys
from retrieval_eval.store.store import RunStore
from retrieval_eval.web.app import create_app
from retrieval_eval.web.judging import JudgingDesk

with RunStore.open(sys.argv[1]) as store:
    create_app(store)
    desk = JudgingDesk()
    assert desk.judge
    loaded = [m for m in ("ruamel.yaml", "yaml") if m in sys.modules]
print(loaded)
"""


def test_starting_the_viewer_leaves_the_set_file_readers_unloaded(tmp_path):
    url = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    done = subprocess.run([sys.executable, "-c", START, url], capture_output=True, text=True,
                          check=True, timeout=120)  # fmt: skip
    assert done.stdout.strip() == "[]"
