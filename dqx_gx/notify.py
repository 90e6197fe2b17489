"""Where a run's alert goes (``--notify KIND:TARGET``) and when (``--notify-on``): words only, no GX.

The actions that send are in :mod:`dqx_gx.run.alerts`; this module is what the command line and
``run_contract`` check before anything starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from dqx_gx.rules.severity import Outcome

NotifyOn = Literal["rejected", "warnings", "always"]
NOTIFY_ON: tuple[str, ...] = get_args(NotifyOn)
KINDS = ("slack", "teams", "webhook", "email")
_ENV = re.compile(r"env:([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Target:
    """One alert destination: a Slack, Teams or other webhook URL, or an email address — given as is, or
    as ``env:NAME``, the environment variable that holds it when the checkpoint runs."""

    kind: str
    value: str

    @property
    def stored(self) -> str:
        """What a checkpoint stores: ``${NAME}`` for ``env:NAME`` (GX substitutes it at run time), so
        the secret itself is never written to the project."""
        found = _ENV.fullmatch(self.value)
        return f"${{{found.group(1)}}}" if found else self.value

    def __str__(self) -> str:
        return f"{self.kind}:{self.value}"


def parse_target(text: str) -> Target:
    """``KIND:TARGET`` → Target; ValueError with the one-line reason."""
    kind, _, value = text.partition(":")
    if kind not in KINDS:
        raise ValueError(f"{text!r}: the kind is one of {', '.join(KINDS)} (e.g. slack:https://hooks...)")
    if not value:
        raise ValueError(f"{text!r}: give the target after '{kind}:' (a URL, an address, or env:NAME)")
    if value.startswith("env:"):
        if not _ENV.fullmatch(value):
            raise ValueError(f"{text!r}: env: takes an environment variable name (env:SLACK_WEBHOOK)")
    elif kind == "email" and not re.fullmatch(r"[^@\s,]+@[^@\s,]+", value):
        raise ValueError(f"{text!r}: not an email address")
    elif kind != "email" and not re.match(r"https?://", value):
        raise ValueError(f"{text!r}: a {kind} target is an http(s):// URL or env:NAME")
    return Target(kind, value)


def fires(outcome: Outcome, notify_on: NotifyOn) -> bool:
    """Whether a run with this verdict alerts: ``rejected`` only on rejected runs, ``warnings`` also on
    passed_with_warnings, ``always`` on every run."""
    return notify_on == "always" or outcome == "rejected" or (notify_on == "warnings" and outcome != "passed")
