"""The config's ``keymap``: checked against the bindings that exist, and shown as in force.

A keymap entry names a binding by its stable id and gives it keys. An id no binding has,
or a key no terminal sends (a typo such as ``"not-a-key!!"``), would otherwise be dropped
without a word and leave the person wondering why nothing changed; here each one is
named, and the rest is applied. The help screen lists the keys in force, as they are
typed (``?``, ``[``, ``ctrl+p``), not as Textual names them (``question_mark``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding
from textual.keys import Keys, _character_to_key, format_key, key_to_character

from envtui.vocabulary.suggest import did_you_mean

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
_NAMED_KEYS = frozenset(key.value for key in Keys)


def valid_key(key: str) -> bool:
    """Whether ``key`` (``"p"``, ``"?"``, ``"space"``, ``"ctrl+shift+f5"``) is a key."""
    if key.strip() == "+":
        return True
    *modifiers, name = key.strip().split("+")
    if any(m not in MODIFIERS for m in modifiers) or not name:
        return False
    if len(name) == 1:
        return name.isprintable()
    return name in _NAMED_KEYS or key_to_character(name) is not None


def _keys(spec: str) -> list[str]:
    return [k.strip() for k in spec.split(",")]


@dataclass(frozen=True)
class KeymapCheck:
    """The entries that can be applied, and a line for each one that cannot."""

    usable: dict[str, str]
    problems: list[str]


def check_keymap(
    keymap: Mapping[str, str],
    known_ids: Iterable[str],
    where: Mapping[str, str] | None = None,
) -> KeymapCheck:
    """Split ``keymap`` into what applies and what is wrong, naming each wrong entry (at
    the ``FILE:LINE`` ``where`` gives for it, the nearest known id for an unknown one)."""
    known = set(known_ids)
    usable: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, spec in keymap.items():
        at = f"{where[binding_id]}: " if where and binding_id in where else ""
        if binding_id not in known:
            hint = did_you_mean(binding_id, known) or f"ids: {', '.join(sorted(known))}"
            problems.append(f"{at}unknown binding id {binding_id!r} ({hint})")
            continue
        bad = [key for key in _keys(spec) if not valid_key(key)]
        if bad:
            problems.append(f"{at}{binding_id}: not a key: {', '.join(repr(k) for k in bad)}")
            continue
        usable[binding_id] = spec
    return KeymapCheck(usable, problems)


def binding_ids(bindings: Iterable[object]) -> list[str]:
    """The ids of the :class:`Binding` objects among ``bindings``."""
    return [b.id for b in bindings if isinstance(b, Binding) and b.id]


def typed(key: str) -> str:
    """A key as a person types it: ``question_mark`` → ``?``, ``ctrl+p`` stays ``ctrl+p``."""
    *modifiers, name = key.split("+")
    shown = format_key(name) if len(name) > 1 else name
    return "+".join([*modifiers, shown])


def keys_in_force(bindings: Iterable[object], keymap: Mapping[str, str]) -> list[tuple[str, str]]:
    """(keys as typed, description) for each binding, the keymap's keys where it moves one."""
    rows = []
    for binding in bindings:
        if not isinstance(binding, Binding):
            continue
        spec = keymap.get(binding.id or "", binding.key)
        keys = [typed(_canonical(k)) for k in _keys(spec)]
        rows.append((", ".join(keys), binding.description))
    return rows


def _canonical(key: str) -> str:
    """``?`` and ``question_mark`` are one key: the long name, as Textual stores it."""
    *modifiers, name = key.split("+")
    return "+".join([*modifiers, _character_to_key(name) if len(name) == 1 else name])
