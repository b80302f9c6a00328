"""Tests with real parts: SSH servers (in-process and OpenSSH's sshd), the codex binary, tmux,
envtui as a separate process, and the slow ones (load, the demo, the built wheel).

A test that needs a part the machine lacks skips and names the package to install.
"""
