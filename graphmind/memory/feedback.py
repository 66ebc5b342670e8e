"""Feedback on a decision: correct, incorrect, or a gold answer scored by token F1.

Only decisions marked ``correct`` feed evidence profiles and the planner, so feedback
is what turns past answers into memory. Feedback is idempotent and can be corrected
(the latest call wins); it is stored on the Decision and on its DECIDED edge, and the
same write moves the decision's evaluations in or out of the evidence stats
(``memory.stats``) when it makes the decision correct or takes that back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from graphmind.core.errors import BadInputError, NotFoundError
from graphmind.core.scoring import CORRECT_F1, best_token_f1
from graphmind.memory import stats
from graphmind.store.base import GraphStore

OUTCOMES = ("pending", "correct", "incorrect")


@dataclass
class FeedbackResult:
    """What feedback did to one decision."""

    decision_id: str
    outcome: str
    previous: str
    answer: str
    f1: float | None = None  # when feedback was a gold answer


def record_feedback(
    store: GraphStore,
    decision_id: str,
    *,
    correct: bool | None = None,
    gold: str | None = None,
) -> FeedbackResult:
    """Mark a decision correct or incorrect, or score it against ``gold`` (token F1 >=
    0.8 counts as correct, as in ROZA). Exactly one of ``correct`` and ``gold``."""
    if (correct is None) == (gold is None):
        raise BadInputError("give exactly one of: correct/incorrect, or a gold answer")
    if gold is not None and not gold.strip():
        raise BadInputError("the gold answer is empty")
    found = store.run("memory/decision_answer", {"id": decision_id})
    if not found:
        raise NotFoundError(f"no decision {decision_id!r} in the store")
    answer = str(found[0]["answer"] or "")
    f1: float | None = None
    if gold is not None:
        # an abstention is never a match for a gold answer
        f1 = 0.0 if found[0]["abstained"] else best_token_f1(answer, [gold])
        correct = f1 >= CORRECT_F1
    outcome = "correct" if correct else "incorrect"
    store.run(
        "memory/set_outcome",
        {
            "id": decision_id,
            "outcome": outcome,
            "gold": gold,
            "f1": f1,
            "now": int(time.time() * 1000),
            "window": stats.WINDOW,
            "capacity": stats.CAPACITY,
        },
        write=True,
    )
    return FeedbackResult(decision_id, outcome, str(found[0]["outcome"] or "pending"), answer, f1)
