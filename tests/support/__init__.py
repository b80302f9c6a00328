"""What the unit and integration tests share, in folders named for what they hold.

- ``fakes/``: stand-ins a test drives or that misbehave on purpose (environments moved by
  hand and a manager recording their events, an exec-server, an app-server, the model).
- ``real/``: the real parts and how to run them on 127.0.0.1 or in an empty network (the
  codex binary and its app-server, SSH servers and OpenSSH, Prometheus, Chromium).
- ``scenarios/``: what a test plays through from start to end (the scripted event stream,
  the dashboard under Pilot, incident steps, Codex threads, programs run in ``unshare -n``).
- ``data/``: inputs and how they are made (hand-written and recorded rollouts, sessions
  trees, golden-vector inputs, hypothesis mutations, hostile text, config files).
- beside them, what every folder uses: bounded waits (``waiting``), whether a process runs
  (``liveness``), ``main()`` in the test's process (``main_in_process``), files by path
  (``files``).
"""
