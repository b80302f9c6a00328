"""The keys a config table takes, for "did you mean …" on a mistyped one.

A key typed wrong (``cwdd``, ``[[enviroments]]``) is otherwise reported as unknown, or
worse as the required key it was meant to be, with nothing pointing at the typo.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel


def keys_at(model: type[BaseModel], loc: Sequence[Any]) -> set[str]:
    """The keys the table at ``loc`` takes (list indexes skipped, every member of a union
    counted); empty where ``loc`` leads to no table of fixed keys (a ``dict``)."""
    models: list[type[BaseModel]] = [model]
    for part in loc:
        if isinstance(part, int):
            continue
        models = [
            found
            for current in models
            for field in _fields(current, str(part))
            for found in _models_in(field)
        ]
    return {name for current in models for name in _names(current)}


def _names(model: type[BaseModel]) -> Iterable[str]:
    for name, field in model.model_fields.items():
        yield field.alias or name


def _fields(model: type[BaseModel], key: str) -> Iterable[Any]:
    for name, field in model.model_fields.items():
        if key in (name, field.alias):
            yield field.annotation


def _models_in(annotation: Any) -> Iterable[type[BaseModel]]:
    """The models an annotation holds: itself, or inside a list, a union, an Annotated."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = typing.get_origin(annotation)
    if origin is dict:
        return  # free keys: nothing to suggest from
    if origin in (list, tuple, typing.Union, types.UnionType, typing.Annotated):
        for argument in typing.get_args(annotation):
            yield from _models_in(argument)
