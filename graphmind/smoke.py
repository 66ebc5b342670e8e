"""``python -m graphmind.smoke``: the crash-proof check of the configured local model.

See ``graphmind.llm.smoke``; this entry point only resolves which model the settings name.
"""

from __future__ import annotations

import sys

from graphmind.config import load_settings
from graphmind.core.errors import GraphMindError
from graphmind.factories import choose_llm
from graphmind.llm.smoke import report


def main() -> int:
    """Check the configured local model; 0 when it answers or none is configured."""
    try:
        gguf = choose_llm(load_settings()).gguf_path
    except GraphMindError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return report(gguf)


if __name__ == "__main__":
    sys.exit(main())
