"""The headless commands: each one a module, none importing Textual."""
