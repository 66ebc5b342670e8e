"""Errors GraphMind reports to users: each carries a message fit to print as is, and the
exit code the CLI ends with (the table in the README's "Exit codes" section).

Each class says what went wrong. The newer ones derive from the class their raise sites
used before (``NotFoundError`` from ``ConfigError``, ``StoreUnavailableError`` from
``StoreError``, …), so an ``except`` clause written for the older class still catches them.
"""

from __future__ import annotations


class GraphMindError(Exception):
    """Base class: the CLI prints the message, never a traceback."""

    exit_code = 1


class ConfigError(GraphMindError):
    """The configuration (environment, graphmind.toml, options) is invalid."""

    exit_code = 2


class BadInputError(ConfigError):
    """What the user gave is unusable: an option's value, an argument, a file's contents."""

    exit_code = 2


class NotFoundError(ConfigError):
    """A thing the user named does not exist: a decision, document, chunk, file, run, …"""

    exit_code = 3


class EmptyStoreError(ConfigError):
    """The store holds no documents yet: there is nothing to answer from."""

    exit_code = 4


class InterruptedBuildError(ConfigError):
    """A build stopped before it finished; running the same command again resumes it."""

    exit_code = 130


class StoreError(GraphMindError):
    """A graph store could not be opened or a query failed."""


class StoreUnavailableError(StoreError):
    """The store cannot be reached, started or opened (or is held by another process)."""

    exit_code = 5


class StoreInUseError(StoreUnavailableError):
    """Another process holds the embedded store's lock."""

    def __init__(self, path: str, pid: int | None) -> None:
        who = f"PID {pid}" if pid else "another process"
        super().__init__(
            f"store {path} is in use by {who}; wait for it to finish, or set "
            "GRAPHMIND_STORE_LOCK_WAIT (seconds) to wait for it"
        )
        self.path = path
        self.pid = pid


class QueryNotFoundError(StoreError):
    """A named query has no .cypher file."""


class QueryParameterError(StoreError):
    """A named query was called without the parameters it needs."""


class QueryFailedError(StoreError):
    """The store rejected or failed a query; nothing of that query was written."""


class QueryTimeoutError(QueryFailedError):
    """The store stopped a query that ran longer than its timeout."""


class EmbedderMismatchError(StoreError):
    """The store was built with another embedding model or dimension."""


class ModelError(GraphMindError):
    """A model (language or embedding) could not be loaded, reached or called."""

    exit_code = 6


class EmbedderError(ModelError, ConfigError):
    """An embedding model could not be loaded or run (a ConfigError, as it was before)."""


class LLMError(ModelError):
    """A language model could not be loaded, reached or called."""


class LLMOutputError(LLMError):
    """A model's answer stayed invalid after every repair retry (or the request was refused)."""

    def __init__(self, task: str, detail: str, attempts: int) -> None:
        short = detail if len(detail) <= 400 else detail[:397] + "..."
        super().__init__(f"LLM task {task!r} failed after {attempts} attempt(s): {short}")
        self.task = task
        self.detail = detail
        self.attempts = attempts


# The exit-code table: every class the CLI can end on, with the code it carries. The README's
# "Exit codes" section lists the same (a test compares them).
ERROR_CLASSES: tuple[type[GraphMindError], ...] = (
    GraphMindError,
    StoreError,
    ConfigError,
    BadInputError,
    NotFoundError,
    EmptyStoreError,
    StoreUnavailableError,
    ModelError,
    InterruptedBuildError,
)
