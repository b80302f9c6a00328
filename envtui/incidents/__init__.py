"""Layer 2, what is wrong now: findings folded into incidents (active, acknowledged,
resolved), which rules a step's coverage lets an incident resolve by, what is worth an
alert, and one Codex thread summed up in a sessions row.
"""
