"""Being one more client of Codex's app-server daemon: where it is, and what it says.

``address`` reads a server address in Codex's own forms and opens the message channel to
it; ``client`` is the headless client (connect, list the threads with their statuses, hear
every change, subscribe to a waiting thread and answer what it asks).
"""
