"""The ask queue: at most ``slots`` asks run at once, the rest wait their turn in order.

A local llama.cpp model answers one request at a time (its ``LLM.concurrency`` is 1); an
endpoint takes ``GRAPHMIND_LLM_CONCURRENCY`` at once. Each waiting ask is told its place
in the line (1 = next) whenever it changes, so a client can show it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class AskGate:
    """First come, first served admission for asks (and LLM builds) on one model."""

    def __init__(self, slots: int) -> None:
        self.slots = max(1, slots)
        self._running = 0
        self._waiting: deque[object] = deque()
        self._changed = threading.Condition()

    @property
    def running(self) -> int:
        """Asks running now."""
        with self._changed:
            return self._running

    @property
    def waiting(self) -> int:
        """Asks waiting for a slot."""
        with self._changed:
            return len(self._waiting)

    @contextmanager
    def turn(self, on_wait: Callable[[int], None] | None = None) -> Iterator[int]:
        """Wait for a slot and hold it for the block; ``on_wait(position)`` is called with
        the place in line each time it changes while waiting. Yields the first place it
        was given (0: it ran at once)."""
        ticket = object()
        first = 0
        with self._changed:
            self._waiting.append(ticket)
            last = 0
            while True:
                place = self._waiting.index(ticket)
                if place == 0 and self._running < self.slots:
                    self._waiting.popleft()
                    self._running += 1
                    break
                if place + 1 != last:
                    last = place + 1
                    first = first or last
                    if on_wait is not None:
                        on_wait(last)
                self._changed.wait()
            # the next in line may also fit when several slots are free
            self._changed.notify_all()
        try:
            yield first
        finally:
            with self._changed:
                self._running -= 1
                self._changed.notify_all()
