"""``envtui sessions`` on screen: the app, its screen of Codex threads, their table and
the words each row is made of."""
