"""How a round of the loop decides what comes next: the next hop's question, the check,
and whether another round goes on. ``[ask] policy`` picks one by name."""

from __future__ import annotations

from graphmind.ask.options import PolicyName
from graphmind.ask.policies.base import Answered, Next, Policy
from graphmind.ask.policies.reflect import ReflectPolicy
from graphmind.ask.policies.rules import RulesPolicy

POLICIES: dict[PolicyName, Policy] = {"rules": RulesPolicy(), "reflect": ReflectPolicy()}

__all__ = ["POLICIES", "Answered", "Next", "Policy", "ReflectPolicy", "RulesPolicy"]
