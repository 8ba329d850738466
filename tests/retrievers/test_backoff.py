"""The one retry policy every client shares: what it waits, what it retries, when it stops
(attempts, the deadline), and what it lets through untouched."""

from __future__ import annotations

import email.utils
import time

import pytest

from retrieval_eval.retrievers.backoff import Backoff, GaveUp, Verdict, retrying
from retrieval_eval.retrievers.http_client import retry_after_s


class Flaky(Exception):
    pass


class Broken(Exception):
    pass


def judge(error: Exception) -> Verdict | None:
    if isinstance(error, Flaky):
        return Verdict(True, reason="flaky")
    if isinstance(error, Broken):
        return Verdict(False)
    return None


class Calls:
    """An attempt that raises the scripted errors in turn, then answers."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.made = 0

    async def __call__(self) -> str:
        self.made += 1
        if self.errors:
            raise self.errors.pop(0)
        return "answer"


class Waits(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_waits_double_with_jitter_down_to_half_and_stop_at_the_cap() -> None:
    policy = Backoff(attempts=10, initial_s=0.1, max_s=1.0)
    for retry, full in [(1, 0.1), (2, 0.2), (3, 0.4), (4, 0.8), (5, 1.0), (9, 1.0)]:
        waits = [policy.delay(retry) for _ in range(200)]
        assert all(full / 2 <= w <= full for w in waits), (retry, min(waits), max(waits))
        assert max(waits) - min(waits) > full / 10  # jittered, not one value
    assert policy.delay(1, retry_after_s=0.7) == 0.7  # the server's word, unjittered
    assert policy.delay(1, retry_after_s=60) == 1.0  # capped
    with pytest.raises(ValueError, match="attempts must be >= 1"):
        Backoff(attempts=0)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_s("3") == 3.0
    assert retry_after_s("-2") == 0.0
    assert retry_after_s(None) is None and retry_after_s("soon") is None
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= (retry_after_s(later) or 0) <= 30


async def test_transient_failures_are_retried_until_an_answer() -> None:
    calls, waits = Calls(Flaky(), Flaky()), Waits()
    assert await retrying(calls, Backoff(attempts=3), judge, sleep=waits) == "answer"
    assert calls.made == 3 and len(waits) == 2


async def test_attempts_run_out_with_the_last_failure_and_its_count() -> None:
    calls, waits = Calls(*(Flaky(f"try {n}") for n in range(1, 10))), Waits()
    with pytest.raises(GaveUp) as gave_up:
        await retrying(calls, Backoff(attempts=4), judge, sleep=waits)
    assert calls.made == 4 and len(waits) == 3
    assert str(gave_up.value.error) == "try 4" and gave_up.value.attempts == 4
    assert gave_up.value.transient and gave_up.value.note == " (after 4 attempts)"


async def test_a_failure_that_is_not_transient_is_not_retried() -> None:
    calls, waits = Calls(Broken("no")), Waits()
    with pytest.raises(GaveUp) as gave_up:
        await retrying(calls, Backoff(attempts=5), judge, sleep=waits)
    assert calls.made == 1 and waits == []
    assert not gave_up.value.transient and gave_up.value.note == ""


async def test_a_failure_the_caller_does_not_know_passes_through_unchanged() -> None:
    error = KeyError("mine")
    with pytest.raises(KeyError) as raised:
        await retrying(Calls(Flaky(), error), Backoff(attempts=5), judge, sleep=Waits())
    assert raised.value is error


async def test_no_wait_is_started_that_would_end_past_the_deadline() -> None:
    calls, waits = Calls(Flaky(), Flaky()), Waits()
    with pytest.raises(GaveUp) as gave_up:
        await retrying(
            calls, Backoff(attempts=5, initial_s=10.0, max_s=10.0), judge,
            deadline=time.monotonic() + 1.0, sleep=waits,
        )  # fmt: skip
    assert calls.made == 1 and waits == [] and gave_up.value.attempts == 1


async def test_a_first_attempt_made_by_the_caller_counts() -> None:
    calls, waits = Calls(Flaky()), Waits()
    with pytest.raises(GaveUp) as gave_up:
        await retrying(calls, Backoff(attempts=2), judge, first=Flaky("inline"), sleep=waits)
    assert calls.made == 1 and gave_up.value.attempts == 2
    assert await retrying(Calls(), Backoff(attempts=2), judge, first=Flaky(), sleep=waits) == (
        "answer"
    )
