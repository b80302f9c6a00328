"""The layer table of ARCHITECTURE.md, enforced on every module of the package.

Every module is found by walking the package (no hand-kept list), its imports are read
with ``ast`` (also those inside functions and under ``TYPE_CHECKING``: a lazy import is
still a dependency), and each import of an envtui unit or a third-party package is
checked against the table. The packages and loose modules must also form no cycle. The
run-time checks at the end import the modules in a fresh interpreter, which is the only
way to prove that a deferred import really defers.
"""

from __future__ import annotations

import ast
import functools
import json
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import envtui

PACKAGE_DIR = Path(envtui.__file__).parent
ARCHITECTURE = PACKAGE_DIR.parent / "ARCHITECTURE.md"


def _table_rows(heading: str) -> list[list[str]]:
    """The cells of the first Markdown table after ``heading`` in ARCHITECTURE.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    after = text[text.index(heading) :].splitlines()[1:]
    start = next(i for i, line in enumerate(after) if line.startswith("|"))
    rows = []
    for line in after[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _names(cell: str) -> list[str]:
    """The backticked names of a cell: ``steps/`` is the package, ``cli`` the module."""
    return [name.rstrip("/") for name in re.findall(r"`([^`]+)`", cell)]


def _read_layers() -> tuple[dict[str, int], dict[str, int]]:
    """(unit -> layer, unit -> rank): a unit imports only its own rank or lower ones."""
    layers: dict[str, int] = {}
    ranks: dict[str, int] = {}
    for layer_cell, units, *_ in _table_rows("## Layers"):
        layer = int(layer_cell.split()[0])
        for name in _names(units):
            unit = "envtui" if name == "envtui" else f"envtui.{name}"
            layers[unit] = layer
            ranks[unit] = len(ranks)
    return layers, ranks


def _read_third_party() -> tuple[dict[str, int], dict[str, set[str]]]:
    """(package -> lowest layer that may import it, package -> the only units that may)."""
    floors: dict[str, int] = {}
    only: dict[str, set[str]] = {}
    for package_cell, layer_cell, only_cell, *_ in _table_rows("## Third-party packages"):
        for package in _names(package_cell):
            floors[package] = int(layer_cell)
            units = {f"envtui.{name}" for name in _names(only_cell)}
            if units:
                only[package] = units
    return floors, only


def _read_reach() -> dict[str, set[int]]:
    """unit -> the layers it may import from, where the table narrows a front end's reach."""
    return {
        f"envtui.{_names(unit_cell)[0]}": {int(n) for n in re.findall(r"\d+", layers_cell)}
        for unit_cell, layers_cell, *_ in _table_rows("## What a front end reaches")
    }


LAYERS, RANKS = _read_layers()
"""Each unit (a package, or one of the few modules at the root) and its layer, read from
ARCHITECTURE.md's table: the document is the one source of truth."""

THIRD_PARTY_FLOOR, FRONT_END_ONLY = _read_third_party()
"""Third-party packages that only some layers (or only some units) may import."""


def test_the_table_is_read_from_the_architecture_document() -> None:
    assert LAYERS["envtui.vocabulary"] == 1
    assert LAYERS["envtui.tui"] == 5
    assert THIRD_PARTY_FLOOR["asyncssh"] == 3
    assert FRONT_END_ONLY["textual"] == {"envtui.tui"}


def test_the_package_root_holds_only_the_entry_points() -> None:
    loose = sorted(p.name for p in PACKAGE_DIR.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "cli.py"]


def unit_of(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


def modules() -> Iterator[tuple[str, Path]]:
    """Every module of the package with its file, found by walking it."""
    yield "envtui", PACKAGE_DIR / "__init__.py"
    for info in pkgutil.walk_packages([str(PACKAGE_DIR)], "envtui."):
        relative = Path(*info.name.split(".")[1:])
        path = PACKAGE_DIR / relative / "__init__.py" if info.ispkg else None
        yield info.name, path or (PACKAGE_DIR / relative).with_suffix(".py")


def imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import in the file, lazy ones included."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield node.lineno, base
            if base in ("envtui", *LAYERS):  # ``from envtui import steps`` names a unit
                for alias in node.names:
                    yield node.lineno, f"{base}.{alias.name}"


def edges() -> Iterator[tuple[str, int, str, str]]:
    """(module, line, imported module, kind) with kind "envtui" or "third-party"."""
    return iter(_edges())


@functools.cache
def _edges() -> tuple[tuple[str, int, str, str], ...]:
    """The package's files are read and parsed once for all the tests that walk them."""
    return tuple(_walk_edges())


def _walk_edges() -> Iterator[tuple[str, int, str, str]]:
    for module, path in modules():
        for line, target in imports(module, path):
            if target == "envtui" or target.startswith("envtui."):
                if unit_of(target) in LAYERS or target == "envtui":
                    yield module, line, target, "envtui"
            else:
                yield module, line, target, "third-party"


def test_every_module_belongs_to_a_layer() -> None:
    unknown = sorted({unit_of(m) for m, _ in modules() if unit_of(m) not in LAYERS})
    assert not unknown, f"add these units to the layer table: {unknown}"


def test_imports_follow_the_layer_table() -> None:
    wrong = []
    for module, line, target, kind in edges():
        here = LAYERS[unit_of(module)]
        top = target.split(".")[0]
        if kind == "envtui":
            mine, theirs = RANKS[unit_of(module)], RANKS.get(unit_of(target), 0)
            if theirs > mine:
                wrong.append(f"{module}:{line} imports {target}, listed after it in the table")
        elif top in THIRD_PARTY_FLOOR and here < THIRD_PARTY_FLOOR[top]:
            wrong.append(f"{module}:{line} imports {top}, which starts at layer {here}")
        elif top in FRONT_END_ONLY and unit_of(module) not in FRONT_END_ONLY[top]:
            allowed = ", ".join(sorted(FRONT_END_ONLY[top]))
            wrong.append(f"{module}:{line} imports {top}, which only {allowed} may")
    assert not wrong, "\n".join(wrong)


REACH = _read_reach()
"""Front ends that may import fewer layers than those below them (the dashboard: 1 and 2)."""


def test_a_front_end_imports_only_the_layers_its_reach_names() -> None:
    assert REACH["envtui.tui"] == {1, 2}
    wrong = [
        f"{module}:{line} imports {target} (layer {LAYERS[unit_of(target)]})"
        for module, line, target, kind in edges()
        if kind == "envtui"
        and unit_of(module) in REACH
        and unit_of(target) not in (unit_of(module), "envtui")
        and LAYERS[unit_of(target)] not in REACH[unit_of(module)]
    ]
    assert not wrong, "\n".join(wrong)


def unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {unit: set() for unit in LAYERS}
    for module, _, target, kind in edges():
        if kind == "envtui" and target != "envtui" and unit_of(module) != unit_of(target):
            graph[unit_of(module)].add(unit_of(target))
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that ends where it starts, or None."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_cycle_between_packages() -> None:
    cycle = find_cycle(unit_graph())
    assert cycle is None, " -> ".join(cycle or [])


def module_graph() -> dict[str, set[str]]:
    """Module to module: an imported name (``from envtui.context import SECTION_ID``) is an
    import of the module that holds it."""
    known = {module for module, _ in modules()}
    graph: dict[str, set[str]] = {module: set() for module in known}
    for module, _, target, kind in edges():
        if kind != "envtui":
            continue
        while target not in known:
            target = target.rpartition(".")[0]
        if target != module:
            graph[module].add(target)
    return graph


def test_no_cycle_between_modules_inside_a_package() -> None:
    """Also under ``TYPE_CHECKING``: a reader that imports its line handler, which names the
    reader back, is one concern cut in two."""
    cycle = find_cycle(module_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_walk_sees_lazy_and_type_checking_imports() -> None:
    found = {target for _, _, target, _ in edges()}
    # imported only inside a function of commands/dashboard.py, and under TYPE_CHECKING
    # in commands/check.py: both must be seen, or the table would not guard them.
    assert "envtui.tui.app" in found
    assert "envtui.rollout.check" in found


# --- at run time, in a fresh interpreter -----------------------------------------------------

HEADLESS = sorted(m for m, _ in modules() if not m.startswith("envtui.tui") and "__main__" not in m)
LIGHT = sorted(
    m
    for m in HEADLESS
    if LAYERS[unit_of(m)] <= 2 or unit_of(m) in ("envtui.cli", "envtui.commands")
)


def _run(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True)


@functools.cache
def _loaded_by_imports() -> dict[str, list[str]]:
    """What a fresh interpreter holds after importing LIGHT, then the rest of HEADLESS: one
    interpreter for both checks (each import of the whole package costs a second)."""
    code = (
        "import importlib, json, sys\n"
        "def loaded():\n"
        "    return sorted(m for m in sys.modules\n"
        "                  if m.split('.')[0] in ('textual', 'asyncssh', 'websockets'))\n"
        f"for name in {LIGHT!r}: importlib.import_module(name)\n"
        "light = loaded()\n"
        f"for name in {HEADLESS!r}: importlib.import_module(name)\n"
        "print(json.dumps({'light': light, 'headless': loaded()}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    loaded: dict[str, list[str]] = json.loads(result.stdout)
    return loaded


def test_nothing_outside_the_tui_imports_textual() -> None:
    textual = [m for m in _loaded_by_imports()["headless"] if m.split(".")[0] == "textual"]
    assert not textual, textual


def test_vocabulary_logic_and_commands_load_neither_textual_nor_asyncssh() -> None:
    loaded = sorted({m.split(".")[0] for m in _loaded_by_imports()["light"]})
    assert not loaded, loaded


def test_building_the_command_line_loads_neither_textual_nor_asyncssh() -> None:
    _run(
        "import sys\n"
        "from envtui.cli import build_parser\n"
        "build_parser().parse_args(['render', 'x.json'])\n"
        "build_parser().parse_args(['serve', '--', 'watch'])\n"
        "loaded = sorted(m for m in ('textual', 'asyncssh', 'textual_serve', 'aiohttp')\n"
        "                if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )


def test_envtui_render_runs_without_textual() -> None:
    code = (
        "import sys\n"
        "sys.modules['textual'] = None  # any import of textual now fails\n"
        "from envtui.cli import main\n"
        "raise SystemExit(main(['render', '-']))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=b'{"environments": [{"id": "local", "cwd": "/r"}]}',
        capture_output=True,
        check=True,
    )
    assert result.stdout == b"<environment_context>\n  <cwd>/r</cwd>\n</environment_context>\n"


EXAMPLES = PACKAGE_DIR.parent / "examples"


def test_envtui_render_imports_no_pydantic() -> None:
    """The start-up budget of ``envtui render`` leaves no room for pydantic's models.

    A full render, a diff against a snapshot and a diff against a state document, each
    with ``--json``, all run in one interpreter; then not even pydantic_core is loaded.
    """
    state, snapshot = EXAMPLES / "turn-state.json", EXAMPLES / "previous-snapshot.json"
    code = (
        "import sys\n"
        "from envtui.cli import main\n"
        f"assert main(['render', {str(state)!r}, '--json']) == 0\n"
        f"assert main(['render', {str(state)!r}, '--diff', '--previous', {str(snapshot)!r}]) == 0\n"
        f"assert main(['render', {str(state)!r}, '--diff', '--previous', {str(state)!r}]) == 0\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core'))\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.startswith(b'{"text":"<environment_context>'), result.stdout[:200]


def test_envtui_sessions_indexes_a_tree_without_pydantic(tmp_path: Path) -> None:
    """The index's start-up budget leaves no room for the event models either: a tree
    whose rollouts carry snapshots, a compaction and a live thread's active incident is
    indexed and printed, with not even pydantic_core loaded."""
    from tests.support.data.session_trees import copy_real, with_wrong_last_context

    copy_real(tmp_path)
    with_wrong_last_context(tmp_path, ago=0.0)
    code = (
        "import sys\n"
        "from envtui.cli import main\n"
        f"code = main(['sessions', {str(tmp_path)!r}, '--json'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core'))\n"
        "print('loaded:', loaded, file=sys.stderr)\n"
        "raise SystemExit(code)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert result.stderr == b"loaded: []\n"
    assert result.returncode == 1  # the live thread's incident
    assert b'"incidents":["context-mismatch"]' in result.stdout


def test_a_bad_document_still_gets_pydantics_words_in_a_fresh_interpreter() -> None:
    """The other side of the cut: pydantic is imported when a document has an error."""
    code = "from envtui.cli import main\nraise SystemExit(main(['render', '-']))\n"
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=b'{"environments": [{"id": "local", "cwd": "/r", "primary": "yes"}]}',
        capture_output=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        b"envtui render: error: <stdin>: environments[0].primary: Input should be a valid boolean\n"
    )


def test_every_commands_parser_loads_no_config_or_event_models() -> None:
    """The whole tree (``completion``, ``manpage``, a flag given before its command) builds
    every command's arguments; the models and asyncio load when one runs. ``--help`` itself
    loads no command's module (``tests/unit/test_help.py``)."""
    code = (
        "import contextlib, sys\n"
        "from envtui.cli import build_parser, main\n"
        "with contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "build_parser()\n"
        "heavy = ('pydantic', 'envtui.settings.config', 'envtui.vocabulary.events', 'asyncio')\n"
        "loaded = sorted(m for m in heavy if m in sys.modules)\n"
        "assert not loaded, loaded\n"
        "assert 'envtui.commands.info' in sys.modules  # the whole tree was built\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert b"render" in result.stdout
