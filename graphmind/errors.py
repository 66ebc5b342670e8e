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
