"""``graphmind ask``: the iterative evidence loop (retrieve, judge, evolve, answer)."""
