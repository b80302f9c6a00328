"""What a test plays through from start to end: scripted streams, the dashboard under Pilot,
incident steps, Codex threads, programs run in an empty network namespace."""
