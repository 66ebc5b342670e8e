"""``graphmind`` as a user runs it: the real console script in a child process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

GRAPHMIND = shutil.which("graphmind", path=str(Path(sys.executable).parent)) or "graphmind"


def graphmind(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMIND_")}
    return subprocess.run(
        [GRAPHMIND, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        env={**clean, **(env or {})},
    )
