"""Textual's and Rich's private parts, each named in one module: the render caches the
dashboard bounds, the terminal's writer thread and input reader it replaces. A release that
moves one of them fails the test beside its module, not the dashboard."""
