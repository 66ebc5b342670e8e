"""Keeps an embedded FalkorDB server from outliving the process that started it.

The embedded server is a separate ``redis-server`` process. When its owner dies
without closing the store (a segfault, SIGKILL, the OOM killer), nothing else would
stop it: it would hold memory and the store's files until the next GraphMind command
on that store. ``start_watchdog`` starts a small child process that waits for its
parent to go and then shuts the server down, saving (SHUTDOWN SAVE; SIGTERM, then
SIGKILL, if that does not work), within about a second.

Run as ``python -m graphmind.store.watchdog PARENT_PID SERVER_PID SOCKET``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

POLL_S = 0.25
SHUTDOWN_WAIT_S = 10.0
TERM_WAIT_S = 5.0


def start_watchdog(server_pid: int, socket_path: str) -> subprocess.Popen[bytes]:
    """Start the watchdog of ``server_pid`` for this process (its own session, so a
    Ctrl-C meant for the owner does not stop it first)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "graphmind.store.watchdog",
            str(os.getpid()),
            str(server_pid),
            socket_path,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def stop_watchdog(watchdog: subprocess.Popen[bytes]) -> None:
    """End a watchdog whose owner closed the store itself."""
    if watchdog.poll() is None:
        watchdog.terminate()
        try:
            watchdog.wait(timeout=5)
        except subprocess.TimeoutExpired:
            watchdog.kill()
            watchdog.wait()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not count)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def shut_down(server_pid: int, socket_path: str) -> None:
    """SHUTDOWN SAVE over the socket, then SIGTERM, then SIGKILL, until it is gone."""
    import redis

    # the server closes the connection as it exits, or is already gone
    with contextlib.suppress(redis.RedisError):
        client = redis.Redis(unix_socket_path=socket_path, socket_timeout=SHUTDOWN_WAIT_S)
        client.shutdown(save=True)
    for sig, wait in ((None, SHUTDOWN_WAIT_S), (signal.SIGTERM, TERM_WAIT_S), (signal.SIGKILL, 5)):
        if sig is not None:
            try:
                os.kill(server_pid, sig)
            except OSError:
                return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not alive(server_pid):
                return
            time.sleep(0.05)


def watch(parent_pid: int, server_pid: int, socket_path: str) -> None:
    """Wait until the parent or the server is gone; in the first case stop the server."""
    while alive(server_pid):
        if os.getppid() != parent_pid or not alive(parent_pid):
            shut_down(server_pid, socket_path)
            return
        time.sleep(POLL_S)


def main(argv: list[str] | None = None) -> int:
    """The watchdog process."""
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(args[0]), int(args[1]), args[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
