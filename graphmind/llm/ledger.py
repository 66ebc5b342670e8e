"""Token and call accounting per task (extraction, summaries, answers …); thread-safe."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, replace
from typing import Any


@dataclass
class TaskUsage:
    """What one task cost: real calls, cache hits, tokens, wall seconds, retries, failures.

    ``retries`` counts repair turns and transport retries; ``failures`` counts
    requests that ended without a valid output.
    """

    task: str
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    retries: int = 0
    failures: int = 0
    cached_tokens: int = 0  # tokens the cache hits cost when they were first asked
    capped: int = 0  # calls whose output ran to their token cap

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, int | float | str]:
        """JSON-ready form, with ``total_tokens``."""
        data: dict[str, int | float | str] = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        data["total_tokens"] = self.total_tokens
        return data


class Ledger:
    """Usage per task name, in the order tasks were first seen."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[str, TaskUsage] = {}

    def _usage(self, task: str) -> TaskUsage:
        usage = self._tasks.get(task)
        if usage is None:
            usage = self._tasks[task] = TaskUsage(task)
        return usage

    def record_call(
        self,
        task: str,
        *,
        prompt_tokens: int,
        completion_tokens: int,
        seconds: float,
        retries: int = 0,
        capped: bool = False,
    ) -> None:
        """One real call to the model (``retries``: transport retries it needed;
        ``capped``: its output ran to the token cap)."""
        with self._lock:
            usage = self._usage(task)
            usage.calls += 1
            usage.capped += int(capped)
            usage.prompt_tokens += prompt_tokens
            usage.completion_tokens += completion_tokens
            usage.seconds += seconds
            usage.retries += retries

    def record_cache_hit(self, task: str, *, tokens: int = 0) -> None:
        """A request answered from the cache (``tokens``: what it cost when first asked)."""
        with self._lock:
            usage = self._usage(task)
            usage.cache_hits += 1
            usage.cached_tokens += tokens

    def record_retry(self, task: str) -> None:
        """A repair turn after an invalid answer."""
        with self._lock:
            self._usage(task).retries += 1

    def record_failure(self, task: str, *, seconds: float = 0.0) -> None:
        """A request that ended without a valid output."""
        with self._lock:
            usage = self._usage(task)
            usage.failures += 1
            usage.seconds += seconds

    def get(self, task: str) -> TaskUsage:
        """A copy of one task's usage (zeros for an unknown task)."""
        with self._lock:
            usage = self._tasks.get(task)
            return replace(usage) if usage else TaskUsage(task)

    def rows(self) -> list[TaskUsage]:
        """Copies of every task's usage, for a summary table."""
        with self._lock:
            return [replace(u) for u in self._tasks.values()]

    def total(self) -> TaskUsage:
        """The sum over all tasks, as a row named ``total``."""
        total = TaskUsage("total")
        for usage in self.rows():
            total.calls += usage.calls
            total.cache_hits += usage.cache_hits
            total.prompt_tokens += usage.prompt_tokens
            total.completion_tokens += usage.completion_tokens
            total.seconds += usage.seconds
            total.retries += usage.retries
            total.failures += usage.failures
            total.cached_tokens += usage.cached_tokens
            total.capped += usage.capped
        return total

    def as_dict(self) -> dict[str, Any]:
        """``{"tasks": {name: usage}, "total": usage}``, JSON-ready."""
        return {
            "tasks": {usage.task: usage.as_dict() for usage in self.rows()},
            "total": self.total().as_dict(),
        }
