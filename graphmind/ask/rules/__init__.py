"""The ask loop's rules: pure functions of text and decisions (no store, LLM or memory)."""
