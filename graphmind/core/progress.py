"""How long-running stages report progress."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol


class Progress(Protocol):
    """Where the pipeline reports progress (the CLI draws bars or prints lines; tests
    ignore it). ``start`` (re)starts a stage with its total, from zero."""

    def start(self, stage: str, total: int | None) -> None: ...
    def advance(self, stage: str, amount: int = 1) -> None: ...


def counter(progress: Progress | None, stage: str) -> Callable[[int], None]:
    """An ``on_done(finished_so_far)`` callback that advances ``stage`` by the difference."""
    done = 0

    def advance(finished: int) -> None:
        nonlocal done
        if progress is not None:
            progress.advance(stage, finished - done)
        done = finished

    return advance


class NoProgress:
    """Progress that reports nothing."""

    def start(self, stage: str, total: int | None) -> None:
        return None

    def advance(self, stage: str, amount: int = 1) -> None:
        return None
