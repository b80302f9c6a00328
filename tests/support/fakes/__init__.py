"""Stand-ins a test drives, or that misbehave on purpose, each used beside the real thing."""
