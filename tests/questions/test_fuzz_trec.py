"""Fuzzing the TREC readers (qrels, topics as TSV and JSONL, run files): whatever a file
holds, reading it either works or raises the project's input error, never anything else.

CI runs a small fixed budget; a long campaign by hand::

    REVAL_FUZZ_EXAMPLES=20000 pytest -q -p no:cacheprovider tests/questions/test_fuzz_trec.py
"""

from __future__ import annotations

import gzip
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.errors import InputError
from retrieval_eval.questions.trec import read_topics, read_trec_qrels
from retrieval_eval.retrievers.kinds.run.runfile import read_run

EXAMPLES = int(os.environ.get("REVAL_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=EXAMPLES <= 100,  # CI: the same examples every run
    suppress_health_check=[HealthCheck.too_slow],
)

#: Pieces real files are made of, and the bytes that break naive readers.
TOKENS = st.sampled_from(
    ["301", "Q0", "0", "d1", "2", "-1", "1.5", "nan", "inf", "1e999", "{", "}", "[", "]",
     '"_id"', '"text"', ":", ",", '"x"', "9" * 5000, "[" * 3000, "\x00", "\udcff", "\ufeff",
     "é", "\r", "\x0b"]
)  # fmt: skip
LINES = st.lists(st.lists(TOKENS, max_size=8).map(lambda parts: " ".join(parts)), max_size=12).map(
    lambda lines: "\n".join(lines)
)
READERS: dict[str, Callable[[Path], object]] = {
    "qrels.txt": read_trec_qrels,
    "topics.tsv": read_topics,
    "topics.jsonl": read_topics,
    "run.txt": read_run,
}


@FUZZ
@given(
    text=LINES | st.text(max_size=200),
    raw=st.binary(max_size=64),
    name=st.sampled_from(sorted(READERS)),
    gz=st.booleans(),
    tab=st.booleans(),
)
def test_any_file_reads_or_is_an_input_error(
    text: str, raw: bytes, name: str, gz: bool, tab: bool
) -> None:
    data = (text.replace(" ", "\t", 1) if tab else text).encode("utf-8", "surrogatepass") + raw
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / (name + (".gz" if gz else ""))
        path.write_bytes(gzip.compress(data) if gz and raw[:1] != b"!" else data)
        try:
            READERS[name](path)
        except InputError as e:
            assert str(path) in str(e), e  # named, whether one problem or several
