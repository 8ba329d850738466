"""The ``command`` kind's retriever: one child process, questions pipelined in order.

- The process starts on the first question (on the caller's event loop) and stays up;
  questions are written as they come and answers are matched to them in order, so
  concurrent questions overlap the pipe's latency while the process answers one by one.
- Each request carries an ``id`` (an integer) that its answer echoes. An answer whose id
  is not the one of the oldest question waiting, an answer without one once the process
  has echoed ids, and a line with no question waiting for it are ``contract`` errors and
  the process is restarted: after a stray line no later answer could be trusted to belong
  to its question. Answers without ids (processes written before ids) are taken only
  while no two questions have been in flight at once (``--concurrency 1``); they can
  then still not tell a stray line from the next answer.
- If the process exits, every question waiting on it is an ``unavailable`` error naming
  the exit code and the end of its standard error (``stderr.StderrTail``: a few short
  lines, secret values masked), and the next question starts it again; after
  ``MAX_RESTARTS`` exits without one answer in between it is not started again.
- An answer line that is not the protocol's JSON is a ``contract`` error for its question,
  and the process is restarted.
- A question past its deadline is a ``timeout``; its late answer is read and dropped.
- ``close()`` closes the process's standard input, then terminates, then kills it.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import logging
import os
import shutil
from typing import TYPE_CHECKING, Any

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverError,
    RetrieverInternal,
    RetrieverTimeout,
    RetrieverUnavailable,
)
from retrieval_eval.retrievers.contract.limits import MAX_RESPONSE_BYTES
from retrieval_eval.retrievers.kinds.base import admit
from retrieval_eval.retrievers.kinds.command.stderr import StderrTail, secret_values
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:  # the config imports this module when it opens one
    from retrieval_eval.retrievers.kinds.command.config import CommandConfig

log = logging.getLogger(__name__)

#: Exits in a row (with no answer in between) after which the process is not restarted.
MAX_RESTARTS = 3
#: Seconds to wait for the process to exit after its input closes, then after SIGTERM.
STOP_GRACE_S = 2.0
#: An answer's ``id`` when it has none (distinct from any JSON value).
_NO_ID = object()
#: What an id-less answer under overlapping questions is told.
_ECHO_IDS = (
    "answers without the request's 'id' while questions overlap: echo each request's "
    "'id' in its answer, or measure at --concurrency 1"
)


class _Process:
    """One running child: its pipes, the questions awaiting answers (request id, future)
    in the order they were written, whether its answers echo ids, its stderr tail."""

    def __init__(self, proc: asyncio.subprocess.Process, target: str, stderr: StderrTail) -> None:
        self.proc = proc
        self.target = target
        self.pending: collections.deque[tuple[int, asyncio.Future[dict[str, Any]]]] = (
            collections.deque()
        )
        self.stderr = stderr
        self.failure: RetrieverError | None = None
        #: None until the first answer; then whether this process's answers carry ids.
        self.echoes_ids: bool | None = None
        #: Two questions have been in flight at once (id-less answers are then refused).
        self.overlapped = False
        self.loop = asyncio.get_running_loop()
        assert proc.stdin is not None
        self.stdin = proc.stdin
        self.reader = asyncio.ensure_future(self._read_answers())
        self.errors = asyncio.ensure_future(self._read_stderr())

    @property
    def alive(self) -> bool:
        return self.failure is None

    def ask(self, request_id: int, line: bytes) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        if self.pending:
            self.overlapped = True
        self.pending.append((request_id, future))  # same step as the write: order is the protocol
        self.stdin.write(line)  # at once: batching writes per loop turn measured slower
        return future

    async def _read_answers(self) -> None:
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        try:
            while True:
                try:
                    line = await stdout.readline()
                except ValueError:  # a line over the stream's limit
                    self._broken(f"an answer line over {MAX_RESPONSE_BYTES} bytes")
                    return
                if not line:
                    break
                if not self._answer(line):
                    return
        except Exception as e:  # pragma: no cover - defensive
            self._broken(f"reading its answers failed: {e}")
            return
        code = await self.proc.wait()
        await asyncio.wait([self.errors], timeout=1.0)  # its last words, if any
        tail = self.stderr.tail()
        said = f"; its stderr ends: {tail}" if tail else ""
        self._fail(RetrieverUnavailable(self.target, f"process exited with code {code}{said}"))

    def _answer(self, line: bytes) -> bool:
        """Hand ``line`` to the oldest question waiting if it is that question's answer;
        else break the process (False)."""
        if not self.pending:
            self._broken(f"a line with no question waiting for it: {_clip(line)}")
            return False
        request_id, future = self.pending[0]
        try:
            document = json.loads(line)
        except (ValueError, RecursionError):
            self._broken(
                f"a line that is not JSON: {_clip(line)}", f"answer is not JSON: {_clip(line)}"
            )
            return False
        if not isinstance(document, dict):
            shown = _clip(line)
            self._broken(
                f"a line that is not an answer: {shown}", f"answer is not an object: {shown}"
            )
            return False
        problem = self._id_problem(document.get("id", _NO_ID), request_id)
        if problem is not None:
            self._broken(f"an answer out of step: {_clip(line)}", problem)
            return False
        self.pending.popleft()
        if not future.done():  # done: cancelled when its deadline passed
            future.set_result(document)
        return True

    def _id_problem(self, answer_id: object, request_id: int) -> str | None:
        """Why an answer with ``answer_id`` is not the answer to ``request_id``, if it is not."""
        if answer_id is _NO_ID:
            if self.echoes_ids:
                return f"answer without the 'id' of its request ({request_id})"
            if self.overlapped:
                return _ECHO_IDS
            self.echoes_ids = False
            return None
        if self.echoes_ids is False:
            return f"answer with an 'id' ({_show(answer_id)}) after answers without one"
        self.echoes_ids = True
        if type(answer_id) is not int or answer_id != request_id:
            return (
                f"answer for id {_show(answer_id)} while request {request_id} waited for its "
                "answer (answers come in the order of the requests, each with its request's id)"
            )
        return None

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            text = self.stderr.add(line)
            if text is not None:
                log.debug("%s stderr: %s", self.target, text)

    def _broken(self, problem: str, first: str | None = None) -> None:
        """A protocol breach: fail what waits (the oldest question with ``first``, if
        given), stop the process (restarted on demand)."""
        if first is not None and self.pending:
            _, future = self.pending.popleft()
            if not future.done():
                future.set_exception(RetrieverContractError(self.target, first))
        self._fail(RetrieverContractError(self.target, f"the process wrote {problem}"))
        if self.proc.returncode is None:
            self.proc.kill()

    def _fail(self, error: RetrieverError) -> None:
        if self.failure is None:
            self.failure = error
        while self.pending:
            _, future = self.pending.popleft()
            if not future.done():
                future.set_exception(error)

    async def stop(self) -> None:
        proc = self.proc
        if proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.close()
        if proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), STOP_GRACE_S)
            except TimeoutError:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), STOP_GRACE_S)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
        for task in (self.reader, self.errors):
            if not task.done():
                task.cancel()
        await asyncio.gather(self.reader, self.errors, return_exceptions=True)


class CommandRetriever(KindRetriever):
    """``AsyncRetriever`` over a ``command`` entry of reval.toml."""

    config: CommandConfig

    def __init__(self, config: CommandConfig, timeout_s: float | None = None) -> None:
        target = f"{config.common.name} ({' '.join(config.command)})"
        super().__init__(config, timeout_s, target=target)
        self._environment = {**os.environ, **config.env}
        self._secrets = secret_values(config.env, os.environ)
        self._request_ids = itertools.count(1)
        executable = config.command[0]
        found = shutil.which(executable, path=self._environment.get("PATH"))
        if found is None and not (config.cwd / executable).is_file():
            raise ConfigError(
                f"{config.common.where}: key 'command': {executable!r} is not a program "
                "found on PATH or in the entry's folder"
            )
        self._process: _Process | None = None
        self._starting: asyncio.Lock | None = None  # created on the loop that runs it
        self._exits_in_a_row = 0
        self._closed = False

    async def _running(self) -> _Process:
        process = self._process
        if process is not None and process.alive:
            return process
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            process = self._process
            if process is not None and process.alive:
                return process
            if process is not None:
                await process.stop()
                self._exits_in_a_row += 1
                if self._exits_in_a_row >= MAX_RESTARTS:
                    raise RetrieverUnavailable(
                        self.target,
                        f"not restarted: it exited {self._exits_in_a_row} times in a row "
                        f"(last: {process.failure.details if process.failure else '?'})",
                    )
                log.warning("%s: restarting the process after: %s", self.target, process.failure)
            if self._closed:
                raise RetrieverUnavailable(self.target, "closed")
            self._process = await self._start()
            return self._process

    async def _start(self) -> _Process:
        try:
            proc = await asyncio.create_subprocess_exec(
                *self.config.command,
                cwd=self.config.cwd,
                env=self._environment,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=MAX_RESPONSE_BYTES + 1024,
            )
        except OSError as e:
            raise RetrieverUnavailable(self.target, f"cannot start the process: {e}") from e
        log.info("%s: started process %d", self.target, proc.pid)
        return _Process(proc, self.target, StderrTail(self._secrets))

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        process = self._process
        if process is None or not process.alive:
            process = await self._running()
        request_id = next(self._request_ids)
        request = {"id": request_id, "question": question, "limit": limit}
        line = (json.dumps(request, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
        future = process.ask(request_id, line)
        # Past the deadline the future is cancelled: the reader then drops the late answer
        # instead of handing it to the next question. (A timer handle per call: cheaper
        # than a timeout context, which showed in the benchmark.)
        timer = process.loop.call_later(deadline, future.cancel)
        try:
            answer = await future
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the caller was cancelled (Ctrl-C), not the question timed out
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from None
        finally:
            timer.cancel()
        ranking = self._ranking(process, answer, limit)
        self._exits_in_a_row = 0
        return ranking

    def _ranking(self, process: _Process, document: dict[str, Any], limit: int) -> Ranking:
        if isinstance(document.get("error"), str):
            raise RetrieverInternal(self.target, process.stderr.mask(document["error"])[:500])
        results = document.get("results")
        if not isinstance(results, list):
            shown = _clip(json.dumps(document, ensure_ascii=False).encode())
            process._broken(f"an answer without a 'results' list: {shown}")
            raise RetrieverContractError(
                self.target, f"answer has no 'results' list (or 'error'): {shown}"
            )
        return self.checked(_columns(self.target, results), limit)

    async def close(self) -> None:
        self._closed = True
        process, self._process = self._process, None
        if process is not None:
            await process.stop()


_STR = frozenset({str})
_FLOAT_OR_NONE = frozenset({float, type(None)})
_STR_OR_NONE = frozenset({str, type(None)})


def _columns(target: str, results: list[Any]) -> Ranking:
    """The results as columns: a well-formed answer in a few comprehensions, anything
    else judged result by result (``_checked_columns``) for a message naming the rank."""
    try:
        ids = tuple([r["document_id"] for r in results])
        scores = tuple([r.get("score") for r in results])
        chunks = tuple([r.get("chunk_id") for r in results])
    except (TypeError, KeyError, AttributeError):
        return _checked_columns(target, results)
    if (
        {*map(type, ids)} <= _STR
        and {*map(type, scores)} <= _FLOAT_OR_NONE
        and {*map(type, chunks)} <= _STR_OR_NONE
    ):
        return Ranking(
            ids,
            scores if scores.count(None) != len(scores) else (),
            chunks if chunks.count(None) != len(chunks) else (),
        )
    return _checked_columns(target, results)


def _checked_columns(target: str, results: list[Any]) -> Ranking:
    ids: list[str] = []
    scores: list[float | None] = []
    chunks: list[str | None] = []
    for rank, result in enumerate(results, start=1):
        if not isinstance(result, dict):
            raise RetrieverContractError(target, f"result {rank} is not an object")
        document_id = result.get("document_id", result.get("documentId"))
        if not isinstance(document_id, str):
            raise RetrieverContractError(
                target, f"result {rank}: document_id {json.dumps(document_id)[:80]} is not a string"
            )
        score = result.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
            raise RetrieverContractError(
                target, f"result {rank}: score {json.dumps(score)[:80]} is not a number"
            )
        chunk = result.get("chunk_id", result.get("chunkId"))
        if chunk is not None and not isinstance(chunk, str):
            raise RetrieverContractError(
                target, f"result {rank}: chunk_id {json.dumps(chunk)[:80]} is not a string"
            )
        ids.append(document_id)
        scores.append(None if score is None else float(score))
        chunks.append(chunk)
    return Ranking(
        tuple(ids),
        tuple(scores) if any(s is not None for s in scores) else (),
        tuple(chunks) if any(c is not None for c in chunks) else (),
    )


def _show(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:40] if value is not _NO_ID else "none"


def _clip(line: bytes) -> str:
    text = line[:120].decode("utf-8", "replace").strip()
    return repr(text + ("…" if len(line) > 120 else ""))
