"""The cross-run memory: decisions, their steps and verdicts, written into the graph."""

from graphmind.memory.decisions import (
    DecisionTrace,
    TraceAgent,
    TraceCandidate,
    TraceCitation,
    TraceStep,
    list_decisions,
    read_decision,
    write_decision,
)

__all__ = [
    "DecisionTrace",
    "TraceAgent",
    "TraceCandidate",
    "TraceCitation",
    "TraceStep",
    "list_decisions",
    "read_decision",
    "write_decision",
]
