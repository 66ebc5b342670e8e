"""A headless Chromium driven over the DevTools protocol on a pipe (no WebDriver, no
websocket library): open a page, run JavaScript in it, take screenshots."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from helpers.browser import CHROMIUM_FLAGS

FLAGS = [  # the screenshot tests' flags, the loopback server reachable, over a pipe
    *(f for f in CHROMIUM_FLAGS if not f.startswith(("--host-resolver-rules", "--window-size"))),
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--remote-debugging-pipe",
]


class Browser:
    """One Chromium with one page; ``evaluate`` runs JavaScript in it."""

    def __init__(self, chromium: str, profile: Path, width: int = 1300, height: int = 2000) -> None:
        commands_r, self._commands = os.pipe()
        self._replies, replies_w = os.pipe()
        script = f'exec "$0" "$@" 3<&{commands_r} 4>&{replies_w}'
        self.process = subprocess.Popen(
            ["bash", "-c", script, chromium, *FLAGS, f"--user-data-dir={profile}"],
            pass_fds=(commands_r, replies_w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_r)
        os.close(replies_w)
        self._next = 0
        self._answers: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session = attached["sessionId"]
        self.send("Page.enable", session=True)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def _read(self) -> None:
        buffer = b""
        while chunk := os.read(self._replies, 1 << 16):
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                data = json.loads(message)
                if "id" in data:
                    with self._arrived:
                        self._answers[data["id"]] = data
                        self._arrived.notify_all()

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False
    ) -> dict[str, Any]:
        """One protocol command; its result (RuntimeError on an error reply)."""
        self._next += 1
        ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        with self._arrived:
            if not self._arrived.wait_for(lambda: ident in self._answers, timeout=120):
                raise TimeoutError(f"no reply to {method}")
            answer = self._answers.pop(ident)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def open(self, url: str) -> None:
        """Load ``url`` and wait for it to finish loading."""
        self.send("Page.navigate", {"url": url}, session=True)
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        """Poll ``expression`` until it is truthy; its value (TimeoutError otherwise)."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"never true: {expression}")
            time.sleep(0.1)

    def screenshot(self, path: Path) -> Path:
        """A PNG of the page as drawn now."""
        shot = self.send("Page.captureScreenshot", {"format": "png"}, session=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        """End the browser."""
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.send("Browser.close")
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)
        os.close(self._commands)
        os.close(self._replies)
