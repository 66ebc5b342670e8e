"""An OS file lock beside the embedded store: one process per store file."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from graphmind.errors import StoreInUseError


class StoreLock:
    """Exclusive ``flock`` on ``<store>.lock`` holding the owner's PID."""

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

    def owner(self) -> int | None:
        """PID written by the current holder, if readable."""
        try:
            text = self.path.read_text().strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

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
