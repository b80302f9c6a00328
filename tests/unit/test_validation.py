"""One helper turns the first pydantic error into the line every reader prints."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from envtui.vocabulary.validation import first_error, key_path


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    port: int = Field(ge=1)

    @field_validator("port")
    @classmethod
    def _not_seven(cls, value: int) -> int:
        if value == 7:
            raise ValueError("port 7 is reserved")
        return value


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[_Item]


def _error(data: object) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        _File.model_validate(data)
    return caught.value


def test_key_paths_read_as_written() -> None:
    assert key_path(["environments", 0, "port"]) == "environments[0].port"
    assert key_path([]) == ""


def test_the_first_error_names_its_key_and_counts_the_rest() -> None:
    error = first_error(_error({"items": [{"port": 0}, {"port": 0}]}))
    assert error.key == "items[0].port"
    assert error.message == "Input should be greater than or equal to 1"
    assert error.more == 1


def test_a_validators_own_sentence_loses_the_value_error_prefix() -> None:
    assert first_error(_error({"items": [{"port": 7}]})).message == "port 7 is reserved"


def test_a_reader_gives_its_own_words_for_an_error_type() -> None:
    error = first_error(
        _error({"items": [{"port": 1, "colour": 1}]}), messages={"extra_forbidden": "unknown key"}
    )
    assert (error.key, error.message, error.kind) == (
        "items[0].colour",
        "unknown key",
        "extra_forbidden",
    )


def test_hidden_steps_leave_the_key_path() -> None:
    error = first_error(_error({"items": [{"port": 0}]}), hidden=lambda i, part, _: i == 1)
    assert error.key == "items.port"
