"""The pytest plugin of callint, registered by the wheel.

It gives a test the fixture ``assert_call_clean``, :func:`callint.assert_clean`::

    def test_booking_call(tmp_path, assert_call_clean):
        log = run_simulated_call(tmp_path)      # the agent under test
        assert_call_clean(log, ignore=["long-say"])
"""

from __future__ import annotations

from typing import Callable

import pytest

import callint


@pytest.fixture
def assert_call_clean() -> Callable[..., None]:
    """:func:`callint.assert_clean`: fails the test with the concise report."""
    return callint.assert_clean
