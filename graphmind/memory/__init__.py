"""The cross-run memory: decisions with their steps and verdicts (the reasoning graph),
evidence profiles, query types and the retrieval planner (the retrieval graph), feedback
and pruning."""

from graphmind.memory.decisions import (
    list_decisions,
    read_decision,
    write_decision,
)
from graphmind.memory.feedback import FeedbackResult, record_feedback
from graphmind.memory.profiles import EvidenceProfile, ProfileOptions, evidence_profiles
from graphmind.memory.prune import PruneReport, prune_evaluations
from graphmind.memory.session import MemoryOptions, MemorySession

__all__ = [
    "EvidenceProfile",
    "FeedbackResult",
    "MemoryOptions",
    "MemorySession",
    "ProfileOptions",
    "PruneReport",
    "evidence_profiles",
    "list_decisions",
    "prune_evaluations",
    "read_decision",
    "record_feedback",
    "write_decision",
]
