"""Steps: what one sampling request saw, offered and did, and where that diverges.

One snapshot feeds everything a step records (the context block, its patch, the tool plan
and the findings); that is the point of Codex's StepContext, and of envtui's.
"""
