"""How sure a model was of a choice: the log-probabilities of a JSON field's options.

A judge that must answer "1" or "2" says one of them even when it leans barely either
way, and a small one says "2" whatever stands there (position bias). The probabilities it
gave each option where the field's value begins say more: asked in both orders, their
difference cancels the position bias (``graphmind.eval.pairwise``). Providers that can
read them (llama.cpp in-process, OpenAI-compatible endpoints with ``logprobs``) fill
``Completion.odds`` when asked with ``odds={field: options}``; others leave it ``None``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

Odds = dict[str, dict[str, float]]
"""Per field, each option's log-probability, normalised over the options."""

OddsRequest = Mapping[str, Sequence[str]]
"""Per field of the JSON answer, the string values whose odds are wanted."""


def normalised(logprobs: Mapping[str, float]) -> dict[str, float]:
    """Log-probabilities renormalised over the options alone (log-softmax); options the
    model gave no probability at all share it equally when none has any."""
    finite = [v for v in logprobs.values() if math.isfinite(v)]
    if not finite:
        even = -math.log(len(logprobs)) if logprobs else 0.0
        return {option: even for option in logprobs}
    top = max(finite)
    total = top + math.log(sum(math.exp(v - top) for v in finite))
    return {o: (v - total if math.isfinite(v) else -math.inf) for o, v in logprobs.items()}


class OddsReader:
    """Follows a JSON answer as it is written and tells when an asked field's string value
    begins (``"field": "`` just written), so the caller can read the next token's
    log-probabilities for the field's options; each field is read once, at its first
    value."""

    def __init__(self, request: OddsRequest) -> None:
        self.request = {field: list(options) for field, options in request.items()}
        self.text = ""
        self.odds: Odds = {}
        self._starts = {
            field: re.compile(r'"' + re.escape(field) + r'"\s*:\s*"$') for field in self.request
        }

    def feed(self, text: str) -> None:
        """Append what the model wrote since the last call."""
        self.text += text

    def due(self) -> list[str]:
        """Fields whose value begins at the next token and that have not been read."""
        return [
            field
            for field, start in self._starts.items()
            if field not in self.odds and start.search(self.text[-(len(field) + 16) :])
        ]

    def note(self, field: str, logprobs: Mapping[str, float]) -> None:
        """Keep the next token's log-probabilities of ``field``'s options."""
        options = self.request[field]
        self.odds[field] = normalised({o: logprobs.get(o, -math.inf) for o in options})

    def result(self) -> Odds | None:
        """The odds read, or None when no asked field was reached."""
        return dict(self.odds) if self.odds else None
