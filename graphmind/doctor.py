"""``graphmind doctor``: what store, schema, indexes, embedder and LLM are in use."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from graphmind.config import Settings
from graphmind.errors import GraphMindError
from graphmind.llm import choose_llm, describe_llm
from graphmind.store import StoreInfo, open_store


@dataclass
class DoctorReport:
    """The findings; ``ok`` is false when something blocks building or asking."""

    backend: str
    location: str
    embedder: str
    llm: str
    store: StoreInfo | None = None
    relationships: int = 0
    communities: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data = asdict(self)
        data["ok"] = self.ok
        return data


def run_doctor(settings: Settings) -> DoctorReport:
    """Open (creating if new) the configured store and describe everything in use."""
    target = settings.store_target()
    embedder = settings.embedder_spec()
    report = DoctorReport(
        backend=target.backend,
        location=target.location,
        embedder=f"{embedder.name} (dimension {embedder.dimension})",
        llm=describe_llm(settings),
    )
    try:
        with open_store(settings) as store:
            report.store = store.info()
            report.relationships = store.relationship_count()
            report.communities = store.run("community/counts_by_level")
    except GraphMindError as exc:
        report.problems.append(str(exc))
        return report
    pending = [
        i.name for i in report.store.indexes if i.state.upper() not in ("ONLINE", "OPERATIONAL")
    ]
    if pending:
        report.problems.append("indexes not online: " + ", ".join(pending))
    report.problems.extend(_local_model_problems(settings))
    return report


def _local_model_problems(settings: Settings) -> list[str]:
    """The local model's one-token test, run in a child process so a crash of llama.cpp
    (a native build on a CPU it does not run on) is reported, not suffered."""
    from graphmind.llm.llamacpp_provider import llama_cpp_available
    from graphmind.llm.smoke import check_local_model

    try:
        choice = choose_llm(settings)
    except GraphMindError:
        return []  # already shown as the LLM line ("invalid: ...")
    if choice.kind != "llama-cpp" or choice.gguf_path is None or not llama_cpp_available():
        return []
    problem = check_local_model(choice.gguf_path)
    return [problem] if problem else []
