"""``--output`` on a full disk: a real tmpfs of 64 KiB, nearly filled, mounted in a
private user and mount namespace (``unshare -rm``: no privileges needed). The report
is written atomically, so the old report is left whole and no temporary file remains;
a full disk is the machine's failure (exit 3), and the run itself is saved."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from support.cli import GOOD, REVAL
from support.env import require

from retrieval_eval.store.store import RunStore

SCRIPT = """
set -u
mount -t tmpfs -o size=64k tmpfs {disk} || exit 97
printf 'the old report' > {disk}/report.json
head -c 61440 /dev/zero > {disk}/filler 2>/dev/null
{reval} 2> {out}/stderr
echo $? > {out}/exit
cp {disk}/report.json {out}/after
ls -A {disk} > {out}/listing
"""


def test_a_full_disk_keeps_the_old_report_and_exits_3(sets, serve_table, db, tmp_path: Path):
    require(shutil.which("unshare") is not None, "unshare (util-linux)")
    disk, out = tmp_path / "disk", tmp_path / "out"
    disk.mkdir()
    out.mkdir()
    command = [str(REVAL), "eval", "--set", sets["faq"], "--retriever", serve_table(GOOD),
               "--db", db, "--format", "json", "--output", str(disk / "report.json")]  # fmt: skip
    script = SCRIPT.format(disk=disk, out=out, reval=shlex.join(map(str, command)))
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "CI": "1", "NO_COLOR": "1"},
    )
    require(done.returncode != 97, f"a tmpfs in a user namespace: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "exit").read_text().strip() == "3", stderr
    assert "Traceback" not in stderr and "No space left on device" in stderr
    assert (out / "after").read_text() == "the old report"  # not a truncated new one
    assert (out / "listing").read_text().split() == ["filler", "report.json"]
    with RunStore.open(db) as store:
        assert len(store.list_runs()) == 1  # the measured run was saved before the report
