"""``envtui codex`` on Codex's app-server daemon: the source that attaches, lists, follows."""
