"""The real parts the tests run (Codex, SSH servers and OpenSSH, Prometheus, Chromium), on
127.0.0.1 or in an empty network namespace."""
