"""envtui: a live terminal dashboard for multi-environment agent turns.

The package's core (``envtui.context`` and the command line's headless commands) never
imports Textual; only ``envtui.tui`` does.
"""

import warnings

__version__ = "0.1.0"

# asyncssh (2.24.1 and earlier) names cryptography's DSA classes in its type hints, and
# cryptography 51 deprecates DSA with a warning on every such name: five warnings, ten lines
# on standard error, whenever asyncssh is imported. They are asyncssh's, about a key type
# envtui never offers or accepts (it keeps asyncssh's default algorithms, which leave
# ``ssh-dss`` out), so they are silenced here, before any module of envtui imports asyncssh
# (every import of it passes this package first). Only that message, and only from
# asyncssh's own modules: any other warning still reaches the debug log (``envtui.cli``).
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")
