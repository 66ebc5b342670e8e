"""A persistent LLM response cache: one SQLite file, safe for threads in one process.

Keys are the sha256 of everything that decides an answer (model identity,
messages, schema, token limit, temperature). Only outputs that parsed and
validated are stored, so a rebuild replays them without calling the model.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from graphmind.core.closing import Closing
from graphmind.core.errors import LLMError
from graphmind.llm.base import Completion, Message

_KEY_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    model TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def cache_key(
    model_id: str,
    messages: list[Message],
    schema: dict[str, Any] | None,
    max_tokens: int,
    temperature: float,
    *,
    odds: Mapping[str, list[str]] | None = None,
) -> str:
    """The hex sha256 identifying one request (one that asks for ``odds`` is another
    request: its cached text carries them)."""
    request: dict[str, Any] = {
        "v": _KEY_VERSION,
        "model": model_id,
        "messages": messages,
        "schema": schema,
        "max_tokens": max_tokens,
        "temperature": temperature,
    }
    if odds:
        request["odds"] = dict(odds)
    payload = json.dumps(
        request,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache(Closing):
    """Completions by request key, in a SQLite file (WAL mode)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                path, check_same_thread=False, timeout=30.0, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise LLMError(f"cannot open the LLM response cache {path}: {exc}") from exc

    def get(self, key: str) -> Completion | None:
        """The stored completion for ``key``, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, model FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        return Completion(text=row[0], prompt_tokens=row[1], completion_tokens=row[2], model=row[3])

    def put(self, key: str, completion: Completion) -> None:
        """Store (or replace) the completion for ``key``."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    completion.text,
                    completion.prompt_tokens,
                    completion.completion_tokens,
                    completion.model,
                    time.time(),
                ),
            )

    def dump(self) -> Iterator[dict[str, Any]]:
        """Every stored response as a plain row, by key (to carry a cache elsewhere)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT key, text, prompt_tokens, completion_tokens, model FROM responses "
                "ORDER BY key"
            ).fetchall()
        for key, text, prompt_tokens, completion_tokens, model in rows:
            yield {
                "key": key,
                "text": text,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "model": model,
            }

    def load(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Store dumped rows, keeping any key already here; returns how many were new.
        All or none: a row that is not a dumped one (KeyError, ValueError, TypeError)
        leaves the cache as it was."""
        added = 0
        with self._lock:
            self._db.execute("BEGIN")
            try:
                for row in rows:
                    cursor = self._db.execute(
                        "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?)",
                        (
                            str(row["key"]),
                            str(row["text"]),
                            int(row["prompt_tokens"]),
                            int(row["completion_tokens"]),
                            str(row["model"]),
                            time.time(),
                        ),
                    )
                    added += cursor.rowcount
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return added

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT count(*) FROM responses").fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database; later calls fail."""
        with self._lock:
            self._db.close()
