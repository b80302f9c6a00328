"""Fast tests: pure logic, properties, the command line in-process, the dashboard under Pilot.

Nothing here starts a process or a server, or needs sshd, codex or tmux.
"""
