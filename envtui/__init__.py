"""envtui: a live terminal dashboard for multi-environment agent turns.

The package's core (``envtui.context`` and the command line's headless commands) never
imports Textual; only ``envtui.tui`` does.
"""

__version__ = "0.1.0"
