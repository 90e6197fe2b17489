"""Where a command's seconds went, phase by phase (``dqx-gx validate -v`` prints it on stderr)."""

from __future__ import annotations

import time


class Stopwatch:
    """Laps named after the phase that just ended; the first lap counts from the stopwatch's creation."""

    def __init__(self) -> None:
        self._last = time.perf_counter()
        self.laps: list[tuple[str, float]] = []

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.laps.append((phase, now - self._last))
        self._last = now

    def summary(self) -> str:
        total = sum(seconds for _, seconds in self.laps)
        phases = ", ".join(f"{phase} {seconds:.2f} s" for phase, seconds in self.laps)
        return f"time: {phases} (total {total:.2f} s)"
