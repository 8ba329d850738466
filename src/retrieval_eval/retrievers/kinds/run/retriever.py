"""The run file's retriever: read once when opened, each answer looked up by question id."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from retrieval_eval.errors import RetrieverRejected
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.asked import ASKED_QUESTION_ID
from retrieval_eval.retrievers.kinds.base import admit, fingerprint
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.kinds.run.runfile import read_run
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:
    from retrieval_eval.retrievers.kinds.run.config import RunConfig

log = logging.getLogger(__name__)

#: Topic ids a warning names, of those the evaluated sets do not have.
SHOWN_IGNORED = 5


class RunRetriever(KindRetriever):
    """Answers the question the coordinator is asking (``asked``) from the run file."""

    #: Every answer is the file's own lines, checked against the contract when read.
    checks_answers = True

    def __init__(
        self, config: RunConfig, timeout_s: float | None = None, *, target: str | None = None
    ) -> None:
        super().__init__(config, timeout_s, target=target)
        self.run_config = config
        self.run = read_run(config.path)
        #: The topics asked for, to count at the end those no set asked.
        self.asked: set[str] = set()

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        admit(self.target, question, limit, timeout_s, self.timeout_s)
        topic = ASKED_QUESTION_ID.get()
        if topic is None:
            raise RetrieverRejected(
                self.target,
                "a run file answers golden questions by id, and this call names none "
                "(it answers in evaluations only)",
                "FAILED_PRECONDITION",
            )
        self.asked.add(topic)
        found = self.run.rankings.get(topic)
        if found is None:
            return Ranking(())
        ids, scores = found
        return Ranking(ids[:limit], scores[:limit])

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        """The entry's name; the version names the content (not the path), so that a
        regenerated run is a new variant and a moved one is not."""
        common = self.config.common
        sha256 = self.run.sha256
        tags = ", ".join(self.run.tags)
        return RetrieverDescription(
            identifier=common.name,
            version=f"run {sha256[7:19]}" + (f" {common.version}" if common.version else ""),
            chunk_separator=common.chunk_separator,
            corpus_revision=common.corpus_revision,
            pipeline=f"run {self.run_config.path.name}: {len(self.run.rankings)} topics, "
            f"tag {tags}",
            metadata={
                "kind": "run",
                "kind.fingerprint": fingerprint({"kind": "run", "sha256": sha256}),
                "run.sha256": sha256,
                "run.tags": tags,
            },
        )

    async def close(self) -> None:
        """Warn about the file's topics no evaluated set asked for: their lines were
        ignored (a run of another split, or a set that lost questions)."""
        if not self.asked:
            return
        ignored = [t for t in self.run.rankings if t not in self.asked]
        if ignored:
            shown = ", ".join(repr(t) for t in ignored[:SHOWN_IGNORED])
            more = ", ..." if len(ignored) > SHOWN_IGNORED else ""
            log.warning(
                "%s: %d of %d topics in the run file are not questions of the evaluated "
                "sets; their lines were ignored (%s%s)",
                self.target, len(ignored), len(self.run.rankings), shown, more,
            )  # fmt: skip
        self.asked = set()
