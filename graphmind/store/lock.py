"""An OS file lock beside the embedded store: one process owns the store's server.

The lock file holds the owner's PID and, once its server is up, the server's socket,
so other processes can attach to that server (``FalkorDBLiteStore(attach=True)``)
instead of being locked out while it runs.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from graphmind.core.errors import StoreInUseError


class StoreLock:
    """Exclusive ``flock`` on ``<store>.lock`` holding the owner's PID (first line) and
    its server's socket (second line, once published)."""

    def __init__(self, store_path: str) -> None:
        self.store_path = store_path
        self.path = Path(store_path + ".lock")
        self._fd: int | None = None

    def acquire(self, wait: float = 0.0) -> None:
        """Take the lock, waiting up to ``wait`` seconds; StoreInUseError when busy."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    owner = self.owner()
                    os.close(fd)
                    raise StoreInUseError(self.store_path, owner) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        os.fsync(fd)
        self._fd = fd

    def publish(self, socket: str) -> None:
        """Say where this holder's server listens (only while holding the lock)."""
        if self._fd is None:
            raise RuntimeError("publish() needs the lock")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()}\n{socket}\n".encode(), 0)
        os.fsync(self._fd)

    def _lines(self) -> list[str]:
        try:
            return self.path.read_text().splitlines()
        except OSError:
            return []

    def owner(self) -> int | None:
        """PID written by the current holder, if readable."""
        lines = self._lines()
        text = lines[0].strip() if lines else ""
        return int(text) if text.isdigit() else None

    def socket(self) -> str | None:
        """The socket the current holder's server listens on, once published."""
        lines = self._lines()
        return lines[1].strip() or None if len(lines) > 1 else None

    def try_acquire(self) -> bool:
        """Take the lock if it is free now; False when another process holds it."""
        try:
            self.acquire(0.0)
        except StoreInUseError:
            return False
        return True

    def release(self) -> None:
        """Drop the lock (the file stays; its content is cleared)."""
        if self._fd is None:
            return
        try:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None
