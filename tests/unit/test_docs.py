"""The README and the pages under docs/ point at each other and at files that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _links(page: Path) -> list[Path]:
    text = page.read_text(encoding="utf-8")
    return [
        (page.parent / target).resolve()
        for target in LINK.findall(text)
        if not target.startswith(("http://", "https://"))
    ]


def test_every_page_under_docs_is_linked_from_the_readme() -> None:
    linked = set(_links(ROOT / "README.md"))
    missing = sorted(p.name for p in DOCS.glob("*.md") if p.resolve() not in linked)
    assert not missing, f"the README does not link {missing}"


def test_every_relative_link_of_the_readme_and_docs_names_a_file_that_exists() -> None:
    broken = [
        f"{page.relative_to(ROOT)} -> {target}"
        for page in [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *DOCS.glob("*.md")]
        for target in _links(page)
        if not target.exists()
    ]
    assert not broken, "\n".join(broken)


def test_the_readme_stays_short_and_keeps_the_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "<!-- test-command -->\n```sh\n" in readme
