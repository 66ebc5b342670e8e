"""Evidence profiles: what earlier correct decisions said about each candidate (ROZA).

One named query walks backwards from every candidate over its incoming ``EVALUATED``
edges, keeping only verdicts of decisions whose outcome is ``correct`` (and only the
most recent ones when there are many). Python turns them into the verdict
distribution, the top reasons and the reliability, and renders them beside the
candidate in the judge's prompt within a token budget. A candidate never evaluated in
a correct decision gets no profile, so a cold start is exactly the plain loop.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graphmind.store.base import GraphStore

CHARS_PER_TOKEN = 4
VERDICTS = ("used", "rejected")


@dataclass
class ProfileOptions:
    """ROZA's defaults: sample the ``recent`` newest when more than ``tmax``; ``budget``
    tokens of profiles per prompt."""

    tmax: int = 50
    recent: int = 20
    budget_tokens: int = 2000
    top_reasons: int = 1


@dataclass
class EvidenceProfile:
    """One evidence item's history in earlier correct decisions."""

    evidence_id: str
    evaluated: int  # evaluations in correct decisions
    counts: dict[str, int]  # verdict -> count, over the sample
    reasons: dict[str, list[tuple[str, int]]]  # verdict -> most frequent reasons, with counts
    reliability: float  # used in a correct decision / every incoming evaluation
    incoming: int  # every incoming evaluation, whatever the outcome
    sampled: int = 0  # size of the sample the distribution is computed on
    text: str = field(default="", repr=False)  # the rendered profile

    def share(self, verdict: str) -> str:
        """``"3/3"``-style count of one verdict in the sample."""
        return f"{self.counts.get(verdict, 0)}/{self.sampled}"


def evidence_profiles(
    store: GraphStore, ids: Sequence[str], options: ProfileOptions | None = None
) -> dict[str, EvidenceProfile]:
    """Profiles of the given chunks (one query); chunks without history are absent."""
    opts = options or ProfileOptions()
    if not ids:
        return {}
    rows = store.run(
        "memory/evidence_profiles",
        {"ids": list(dict.fromkeys(ids)), "tmax": opts.tmax, "recent": opts.recent},
    )
    out: dict[str, EvidenceProfile] = {}
    for row in rows:
        sample = [s for s in row["sample"] or [] if s]
        counts = Counter(str(s["verdict"]) for s in sample)
        profile = EvidenceProfile(
            evidence_id=str(row["id"]),
            evaluated=int(row["evaluated"]),
            counts={v: counts.get(v, 0) for v in VERDICTS},
            reasons={
                v: _top_reasons([str(s["reason"] or "") for s in sample if s["verdict"] == v], opts)
                for v in VERDICTS
            },
            reliability=int(row["used_correct"]) / max(1, int(row["incoming"])),
            incoming=int(row["incoming"]),
            sampled=len(sample),
        )
        profile.text = render_profile(profile)
        out[profile.evidence_id] = profile
    return out


def render_profile(p: EvidenceProfile) -> str:
    """The profile in ROZA's format, on one line."""
    times = "once" if p.evaluated == 1 else f"{p.evaluated} times"
    parts = [f"[EVIDENCE PROFILE] Evaluated {times} in prior correct decisions."]
    if p.sampled < p.evaluated:
        parts.append(f"The {p.sampled} most recent:")
    parts.append("Verdict distribution: " + ", ".join(f"{v} {p.share(v)}" for v in VERDICTS) + ".")
    parts.append(f"Reliability: {p.reliability:.2f}.")
    for verdict in sorted(VERDICTS, key=lambda v: -p.counts.get(v, 0)):
        for reason, n in p.reasons.get(verdict, []):
            parts.append(f'Top reason ({verdict}, {n}/{p.counts[verdict]}): "{reason}".')
    return " ".join(parts)


def within_budget(
    profiles: Mapping[str, EvidenceProfile], budget_tokens: int
) -> dict[str, EvidenceProfile]:
    """The profiles to show: most evaluated first, as many as fit in ``budget_tokens``."""
    ranked = sorted(profiles.values(), key=lambda p: (-p.evaluated, p.evidence_id))
    chosen: dict[str, EvidenceProfile] = {}
    left = budget_tokens * CHARS_PER_TOKEN
    for p in ranked:
        if len(p.text) > left:
            continue
        left -= len(p.text)
        chosen[p.evidence_id] = p
    return chosen


def _top_reasons(reasons: list[str], options: ProfileOptions) -> list[tuple[str, int]]:
    """The most frequent reasons (grouped case- and punctuation-insensitively), in the
    wording seen first."""
    groups: dict[str, list[str]] = {}
    for reason in reasons:
        key = _reason_key(reason)
        if key:
            groups.setdefault(key, []).append(reason.strip())
    ranked = sorted(groups.values(), key=lambda g: -len(g))
    return [(g[0], len(g)) for g in ranked[: options.top_reasons]]


_STRIP = str.maketrans("", "", string.punctuation)


def _reason_key(reason: str) -> str:
    return " ".join(reason.lower().translate(_STRIP).split())
