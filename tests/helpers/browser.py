"""A headless Chromium for the tests that look at a page."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS_FOR = 240.0  # seconds of screenshots taken at most until the graph shows
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # no name resolves: the page must draw without a network
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--window-size=1200,900",
]


def colour_pixels(png: Path) -> Counter[str]:
    """How many pixels of each colour a screenshot holds."""
    from PIL import Image

    with Image.open(png) as image:
        rgb = image.convert("RGB")
        return Counter(
            "#{:02x}{:02x}{:02x}".format(*p)
            for p in getattr(rgb, "get_flattened_data", rgb.getdata)()
        )
