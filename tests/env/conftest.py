"""Fixtures the env tests share."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest


@pytest.fixture
def strict_warnings() -> Iterator[None]:
    """Warnings are errors, except two that PettingZoo's api_test raises for every environment whose
    observation is a dict with an action mask, unless its name is on PettingZoo's own list of classic
    environments (``env_obs_dicts``, ``env_obs_space`` in ``pettingzoo/test/api_test.py``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        yield
