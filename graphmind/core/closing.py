"""Objects a ``with`` block closes."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closing:
    """``with obj:`` gives ``obj`` and calls its ``close()`` on leaving."""

    def close(self) -> None:
        """Release what the object holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
