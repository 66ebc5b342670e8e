"""``graphmind serve``: an HTTP API, a web page and an OpenAI-compatible chat endpoint
over one GraphMind store (the ``serve`` extra: FastAPI and uvicorn)."""
