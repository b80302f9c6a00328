"""Event sources: envtui's own engine, and later the demo, codex, rollout and replay."""
