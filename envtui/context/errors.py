"""The error of a wrong field in a document or snapshot (standard library only)."""

from __future__ import annotations


class FieldError(ValueError):
    """A value at ``field`` that is wrong: ``str()`` is ``"field: message"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
