"""An environment manager and a recorder of its events, set up as the environment tests need."""

from __future__ import annotations

from tests.support.fakes.fake_environments import Recorder

from envtui.environments.base import Environment
from envtui.environments.manager import EnvironmentManager
from envtui.steps.selection import Selection


def manager_with(*environments: Environment) -> tuple[EnvironmentManager, Recorder]:
    """A manager with ``environments`` registered and nothing selected yet."""
    recorder = Recorder()
    manager = EnvironmentManager(recorder)
    for environment in environments:
        manager.register(environment)
    return manager, recorder


def managed(environment: Environment) -> tuple[EnvironmentManager, Recorder]:
    """``environment`` registered and selected at its own cwd, so it starts at once.

    Call it from an ``async def`` test: selecting starts tasks on the running loop.
    """
    manager, recorder = manager_with(environment)
    manager.update_selections([Selection(environment.id, environment.cwd)])
    return manager, recorder
