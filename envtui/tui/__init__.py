"""The Textual dashboard. The only package of envtui that imports Textual."""
