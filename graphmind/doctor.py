"""``graphmind doctor``: what store, schema, indexes, embedder and LLM are in use.

Every finding that stops building or asking is a problem (and the command's exit status
is then 1): a store that cannot be opened, an index not online, an embedder that cannot
be set up, LLM settings that contradict themselves, no LLM at all, an endpoint that does
not answer one tiny request, or a local model that is missing llama-cpp-python or crashes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from graphmind.config import Settings
from graphmind.core.errors import GraphMindError
from graphmind.factories import NONE_HINT, choose_llm, describe_llm, make_provider, open_store
from graphmind.store import StoreInfo


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
    attached_to: int | None = None

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        data = asdict(self)
        data["ok"] = self.ok
        return data


def run_doctor(settings: Settings, *, create: bool = True) -> DoctorReport:
    """Open (creating if new, unless ``create=False``) the configured store and describe
    everything in use."""
    target = settings.store_target()
    report = DoctorReport(
        backend=target.backend,
        location=target.location,
        embedder=settings.embedder,
        llm=describe_llm(settings),
    )
    try:
        embedder = settings.embedder_spec()
    except GraphMindError as exc:  # the store cannot be opened without it either
        report.problems += [f"embedder: {exc}", *_llm_problems(settings)]
        return report
    report.embedder = f"{embedder.name} (dimension {embedder.dimension})"
    report.problems += _embedder_problems(settings) + _llm_problems(settings)
    try:
        with open_store(settings, shared=True, create=create) as store:
            report.attached_to = getattr(store, "attached_to", None)
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
    return report


def _embedder_problems(settings: Settings) -> list[str]:
    """Whether the embedder can be set up (its model found; not loaded)."""
    from graphmind.factories import make_embedder

    try:
        make_embedder(settings)
    except GraphMindError as exc:
        return [f"embedder: {exc}"]
    return []


def _llm_problems(settings: Settings) -> list[str]:
    """LLM settings that contradict themselves, no LLM at all, or a local model that
    cannot run."""
    try:
        choice = choose_llm(settings)
    except GraphMindError as exc:
        return [f"LLM: {exc}"]
    if choice.kind == "none":
        return [f"no LLM: building with extraction and asking need one ({NONE_HINT})"]
    if choice.kind == "openai":
        return _endpoint_problems(settings)
    if choice.kind == "llama-cpp":
        from graphmind.llm.llamacpp_provider import INSTALL_HINT, llama_cpp_available

        if not llama_cpp_available():
            return [f"LLM: llama-cpp-python is missing: {INSTALL_HINT}"]
        if choice.gguf_path is not None:
            # one tiny completion in a child process: a crash of llama.cpp (a native
            # build on a CPU it does not run on) is reported, not suffered
            from graphmind.llm.smoke import check_local_model

            problem = check_local_model(choice.gguf_path)
            return [problem] if problem else []
    return []


# The endpoint check: one short request, tried twice, waiting at most this long for each.
PROBE_TRIES = 2
PROBE_TIMEOUT = 30.0
_PROBE_SCHEMA = {
    "title": "Probe",
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


def _endpoint_problems(settings: Settings) -> list[str]:
    """One tiny request to the configured endpoint: reachable, key accepted, model served."""
    probe = settings.model_copy(
        update={
            "llm_request_tries": PROBE_TRIES,
            "llm_timeout": min(settings.llm_timeout, PROBE_TIMEOUT),
        }
    )
    try:
        provider = make_provider(probe)
        assert provider is not None
        provider.complete(
            [{"role": "user", "content": 'Reply with the JSON {"ok": true}.'}],
            schema=_PROBE_SCHEMA,
            max_tokens=16,
            temperature=0.0,
        )
    except GraphMindError as exc:
        return [f"LLM: {exc}"]
    return []
