"""The Codex threads ``envtui sessions`` lists: where the rollout files are (local or over
SFTP), the listing of their tree, one thread's file read in steps, and the index of them."""
