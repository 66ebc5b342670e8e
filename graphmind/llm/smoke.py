"""A crash-proof check of the local model: one tiny completion in a child process.

llama.cpp runs in-process, so a broken build (a native build whose AMX kernel
segfaults on some Xeons) or a broken model file would kill the caller outright.
``check_local_model`` runs the completion in a child and turns any way it can end
(a signal, an error, a hang) into one line that says what to do.

Run it as a script too: ``python -m graphmind.llm.smoke GGUF`` exits 0 when the model
answers, 1 otherwise (``python -m graphmind.smoke`` checks the configured model).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

REBUILD_HINT = (
    "reinstall llama-cpp-python as scripts/setup.sh builds it (AMX off; set "
    "GRAPHMIND_LLAMA_CMAKE_ARGS to name fewer instruction sets): "
    "rm -f .venv/.llama-cpp-build && scripts/setup.sh local"
)
TIMEOUT_S = 300.0
_OK = "graphmind-smoke-ok"


def check_local_model(gguf: Path, *, timeout: float = TIMEOUT_S) -> str | None:
    """None when ``gguf`` loads and answers one tiny JSON completion, else a one-line
    diagnosis (a crash names the signal and the fix)."""
    command = [sys.executable, "-m", "graphmind.llm.smoke", "--child", str(gguf)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"the local model {gguf.name} gave no answer to a one-token test in {timeout:.0f} s"
    if done.returncode == 0 and _OK in done.stdout:
        return None
    if done.returncode < 0:
        try:
            name = signal.Signals(-done.returncode).name
        except ValueError:
            name = f"signal {-done.returncode}"
        return (
            f"llama.cpp crashed ({name}) running the local model {gguf.name}: its build does "
            f"not run on this CPU; {REBUILD_HINT}"
        )
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    detail = lines[-1].strip() if lines else f"exit status {done.returncode}"
    return f"the local model {gguf.name} failed a one-token test: {detail}"


def _child(gguf: Path) -> int:
    """Load ``gguf`` and complete one grammar-constrained token (run in the child)."""
    from graphmind.core.errors import GraphMindError
    from graphmind.llm.llamacpp_provider import LlamaCppProvider

    provider = LlamaCppProvider(gguf, n_ctx=256)
    try:
        provider.complete(
            [{"role": "user", "content": 'Reply {"ok": true}'}],
            schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
            max_tokens=4,
            temperature=0.0,
        )
    except GraphMindError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        provider.close()
    print(_OK)
    return 0


def report(gguf: Path | None) -> int:
    """Check ``gguf`` (None: no local model), print the outcome; the exit status."""
    if gguf is None:
        print("no local model is configured: nothing to check")
        return 0
    problem = check_local_model(gguf)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    print(f"{gguf.name}: the local model answers")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m graphmind.llm.smoke GGUF``: check a model file."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        return _child(Path(args[1]))
    if len(args) != 1:
        print("usage: python -m graphmind.llm.smoke GGUF", file=sys.stderr)
        return 2
    return report(Path(args[0]))


if __name__ == "__main__":
    sys.exit(main())
