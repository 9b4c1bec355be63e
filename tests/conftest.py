"""Shared test configuration: hypothesis profiles and markers.

The default profile keeps property tests quick so the whole suite stays well under 10 minutes on a
2-core machine; `HYPOTHESIS_PROFILE=fuzz pytest -m fuzz` runs the long campaigns.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz",
    max_examples=5000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
