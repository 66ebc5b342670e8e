"""``graphmind serve``: an HTTP API, a web page and an OpenAI-compatible chat endpoint
over one GraphMind store (the ``serve`` extra: FastAPI and uvicorn)."""

DEFAULT_HOST = "127.0.0.1"  # loopback unless told
DEFAULT_PORT = 8765
