"""Layer 2, the dashboard's state without a screen: the reducer over the event stream,
each environment's status history, and the event log's lines.

No Textual, no I/O, no asyncio: the TUI draws it, the tests read it directly.
"""
