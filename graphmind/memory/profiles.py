"""Evidence profiles: what earlier correct decisions said about each candidate (ROZA).

A profile is defined by the backward traversal from a candidate over its incoming
``EVALUATED`` edges (``memory/evidence_profiles``, kept as the source of truth and the
audit path): the verdicts of decisions whose outcome is ``correct``, only the ``recent``
most recent when there are more than ``tmax``, every incoming evaluation for the
reliability. The ask loop reads the same numbers from the stats kept on write
(``memory/profile_stats``, see ``memory.stats``), one bounded read per candidate however
often it was judged, and falls back to the traversal for a chunk whose stats are stale
or whose window is too small for the options. Python turns them into the verdict
distribution, the top reasons and the reliability, and renders them beside the
candidate in the judge's prompt within a token budget. A candidate never evaluated in a
correct decision gets no profile, so a cold start is exactly the plain loop.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from graphmind.core.text import CHARS_PER_TOKEN
from graphmind.store.base import GraphStore

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
    """Profiles of the given chunks, from their stats (one query, plus a traversal for
    chunks the stats cannot answer); chunks without history are absent."""
    opts = options or ProfileOptions()
    if not ids:
        return {}
    rows = store.run(
        "memory/profile_stats",
        {"ids": list(dict.fromkeys(ids)), "tmax": opts.tmax, "recent": opts.recent},
    )
    out: dict[str, EvidenceProfile] = {}
    walk: list[str] = []
    for row in rows:
        evaluated = int(row["evaluated"] or 0)
        wanted = min(evaluated, opts.recent) if evaluated > opts.tmax else evaluated
        verdicts, reasons = row["verdicts"] or [], row["reasons"] or []
        if row["stale"] or len(verdicts) < wanted:
            walk.append(str(row["id"]))
            continue
        sample = [{"verdict": v, "reason": r} for v, r in zip(verdicts, reasons, strict=True)][
            :wanted
        ]
        out[str(row["id"])] = _profile(
            str(row["id"]), evaluated, int(row["incoming"]), int(row["used_correct"]), sample, opts
        )
    if walk:
        out.update(traversed_profiles(store, walk, opts))
    return out


def traversed_profiles(
    store: GraphStore, ids: Sequence[str], options: ProfileOptions | None = None
) -> dict[str, EvidenceProfile]:
    """Profiles of the given chunks by the backward traversal over every incoming
    ``EVALUATED`` edge (the definition, and the audit path); chunks without history are
    absent."""
    opts = options or ProfileOptions()
    if not ids:
        return {}
    rows = store.run(
        "memory/evidence_profiles",
        {"ids": list(dict.fromkeys(ids)), "tmax": opts.tmax, "recent": opts.recent},
    )
    return {
        str(row["id"]): _profile(
            str(row["id"]),
            int(row["evaluated"]),
            int(row["incoming"]),
            int(row["used_correct"]),
            [s for s in row["sample"] or [] if s],
            opts,
        )
        for row in rows
    }


def _profile(
    evidence_id: str,
    evaluated: int,
    incoming: int,
    used_correct: int,
    sample: list[dict[str, Any]],
    opts: ProfileOptions,
) -> EvidenceProfile:
    """The profile of one chunk from its counts and its sample (newest first)."""
    counts = Counter(str(s["verdict"]) for s in sample)
    profile = EvidenceProfile(
        evidence_id=evidence_id,
        evaluated=evaluated,
        counts={v: counts.get(v, 0) for v in VERDICTS},
        reasons={
            v: _top_reasons([str(s["reason"] or "") for s in sample if s["verdict"] == v], opts)
            for v in VERDICTS
        },
        reliability=used_correct / max(1, incoming),
        incoming=incoming,
        sampled=len(sample),
    )
    profile.text = render_profile(profile)
    return profile


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


@lru_cache(maxsize=8192)  # a hot chunk's reasons come back on every read
def _reason_key(reason: str) -> str:
    return " ".join(reason.lower().translate(_STRIP).split())
