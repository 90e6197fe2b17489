"""What a rule's result shows beside its number, engine-neutral."""

from __future__ import annotations

DEFAULT_SAMPLES = 5
"""Failed rows shown per failing row-level rule unless the caller asks for another number (SPEC §5)."""
