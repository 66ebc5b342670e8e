"""What ``graphmind eval`` is asked to run (``EvalOptions``, the ``[eval]`` settings
table) and the configurations it compares."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from graphmind.ask.options import AskOptions, Mode, PolicyName
from graphmind.ask.retrieve import RetrieveOptions
from graphmind.config import Settings
from graphmind.core.errors import ConfigError
from graphmind.ingest.options import ExtractMode
from graphmind.memory.profiles import ProfileOptions
from graphmind.memory.session import MemoryMode

EvalProtocol = Literal["sequential", "given"]
CONFIGS: dict[str, tuple[Mode, MemoryMode]] = {
    "naive": ("naive", "off"),  # vector top-k, one answer call
    "loop": ("loop", "off"),  # the evidence loop without memory
    "profiles": ("loop", "profiles"),  # + the reasoning graph (evidence profiles)
    "full": ("loop", "full"),  # + the retrieval graph (planner)
    "vr": ("judged", "off"),  # ROZA's vanilla RAG: vector top-k, one judged answer call
    "rg": ("judged", "profiles"),  # + evidence profiles beside the passages (Ours-RG)
    "rg-full": ("judged", "full"),  # + the planner's exclusions (Ours-Full)
}
DEFAULT_CONFIGS = ("naive", "loop", "profiles", "full")


@dataclass
class EvalOptions:
    """What to evaluate and how."""

    dataset: str
    data_root: Path | None = None
    questions: Path | None = None  # another question file in the dataset's format
    subset: str | None = None  # the questions whose id starts with this (e.g. conv-30)
    limit: int | None = 30
    seed: int = 0
    configs: tuple[str, ...] = DEFAULT_CONFIGS
    k: int = AskOptions.k
    max_rounds: int = AskOptions.max_rounds
    policy: PolicyName = AskOptions.policy
    recall_k: tuple[int, ...] = (2, 5, 10)
    protocol: EvalProtocol = "sequential"
    # the graph a user builds offline (spaCy); "none": chunk-only, as vector RAG
    extract: ExtractMode = "fast"
    chunk_size: int = 256
    consistency: int = 0  # probe questions for verdict consistency (0: skip)
    consistency_runs: int = 3
    temperature: float = 0.7
    store: str | None = None  # one store the user runs, configurations in turn
    # the top reasons a rendered evidence profile quotes (0: counts and reliability only)
    profile_reasons: int = ProfileOptions.top_reasons
    # the graph facts (triplets) read with each passage (0: the passages alone)
    max_triplets: int = RetrieveOptions.max_triplets

    def identity(self) -> dict[str, Any]:
        """What a run directory is bound to: resuming with other values is refused."""
        optional = {"store": self.store, "subset": self.subset}
        if self.policy != AskOptions.policy:  # runs before it stay valid
            optional["policy"] = self.policy
        bound: dict[str, Any] = {k: v for k, v in optional.items() if v}
        if self.profile_reasons != ProfileOptions.top_reasons:  # runs before it stay valid
            bound["profile_reasons"] = self.profile_reasons
        if self.max_triplets != RetrieveOptions.max_triplets:  # runs before it stay valid
            bound["max_triplets"] = self.max_triplets
        return bound | {
            "dataset": self.dataset,
            "questions": None if self.questions is None else str(self.questions),
            "limit": self.limit,
            "seed": self.seed,
            "k": self.k,
            "max_rounds": self.max_rounds,
            "protocol": self.protocol,
            "extract": self.extract,
            "chunk_size": self.chunk_size,
        }


def eval_options(settings: Settings, dataset: str, **given: Any) -> EvalOptions:
    """The options of an evaluation of ``dataset``: each value given (None: not given),
    else the settings' ``[eval]`` table, else the ``EvalOptions`` default."""
    table = settings.eval
    unknown = sorted(set(table) - {f.name for f in fields(EvalOptions)} - {"dataset"})
    if unknown:
        raise ConfigError(f"[eval]: unknown setting(s) {', '.join(unknown)}")
    chosen = {k: v for k, v in given.items() if v is not None}
    try:
        return TypeAdapter(EvalOptions).validate_python({**table, **chosen, "dataset": dataset})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid [eval] setting: {problems}") from exc
