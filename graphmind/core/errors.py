"""Errors GraphMind reports to users: each carries a message fit to print as is."""


class GraphMindError(Exception):
    """Base class: the CLI prints the message, never a traceback."""

    exit_code = 1


class ConfigError(GraphMindError):
    """The configuration (environment, graphmind.toml, options) is invalid."""

    exit_code = 2


class StoreError(GraphMindError):
    """A graph store could not be opened or a query failed."""


class StoreInUseError(StoreError):
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


class EmbedderMismatchError(StoreError):
    """The store was built with another embedding model or dimension."""


class LLMError(GraphMindError):
    """A language model could not be loaded, reached or called."""


class LLMOutputError(LLMError):
    """A model's answer stayed invalid after every repair retry (or the request was refused)."""

    def __init__(self, task: str, detail: str, attempts: int) -> None:
        short = detail if len(detail) <= 400 else detail[:397] + "..."
        super().__init__(f"LLM task {task!r} failed after {attempts} attempt(s): {short}")
        self.task = task
        self.detail = detail
        self.attempts = attempts
