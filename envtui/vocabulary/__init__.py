"""Layer 1, the words every part shares: events and their JSONL codec, incident messages,
profiles, input limits, safe text, validation errors as lines, stopping, the debug log.

Standard library and pydantic only; everything above imports from here.
"""
