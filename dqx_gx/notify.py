"""Where a run's alerts and results go (``--notify KIND:TARGET``) and when (``--notify-on``): words only, no GX.

The actions that send are in :mod:`dqx_gx.actions`; this module is what the command line, ``run_contract``
and the service check before anything starts (:func:`parse_target`), and how an action says that what it
sent did not arrive (:func:`not_delivered`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from dqx_gx.errors import NotDelivered, warn_contract

if TYPE_CHECKING:
    from dqx_gx.rules.severity import Outcome

NotifyOn = Literal["rejected", "warnings", "always"]
NOTIFY_ON: tuple[str, ...] = get_args(NotifyOn)
ALERTS = ("slack", "teams", "webhook", "email")
"""Kinds that alert when the verdict fires (``--notify-on``)."""
DATAHUB = "datahub"
"""The kind that publishes every run's results to DataHub's metadata service (GMS)."""
KINDS = (*ALERTS, DATAHUB)
DATAHUB_OPTIONS = {
    "token": "the access token, as env:NAME (read when the checkpoint runs, never stored)",
    "platform": "the dataset's DataHub platform (default: the contract's server type, else spark)",
    "dataset": "the dataset's name in DataHub (default: the contract's dataset)",
    "env": "the dataset's environment (default PROD)",
    "instance": "the dataset's platform instance (default: none)",
}
"""What ``datahub:URL,KEY=VALUE,...`` may say after the URL."""
DATAHUB_PLUGIN = "datahub_gx_plugin"
_ENV = re.compile(r"env:([A-Za-z_][A-Za-z0-9_]*)")
_STORED_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Target:
    """One destination: a Slack, Teams or other webhook URL, an email address, or a DataHub GMS URL — given as
    is, or as ``env:NAME``, the environment variable that holds it when the checkpoint runs. A DataHub target
    carries its options (``token``, ``platform``, ``dataset``, ``env``, ``instance``)."""

    kind: str
    value: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def stored(self) -> str:
        """What a checkpoint stores: ``${NAME}`` for ``env:NAME`` (GX substitutes it at run time), so
        the secret itself is never written to the project."""
        return stored(self.value)

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    @property
    def action_name(self) -> str:
        """The name of the checkpoint action that sends to this target: the same target always gets the same
        name, so writing a checkpoint again replaces its action in place."""
        digest = hashlib.sha1(f"{self.kind}:{self.stored}".encode(), usedforsecurity=False).hexdigest()[:8]
        return f"dqx_gx_{self.kind}_{digest}"

    def __str__(self) -> str:
        return ",".join([f"{self.kind}:{self.value}", *(f"{key}={value}" for key, value in self.options)])


def stored(value: str) -> str:
    """``env:NAME`` as a checkpoint stores it (``${NAME}``); anything else as it is."""
    found = _ENV.fullmatch(value)
    return f"${{{found.group(1)}}}" if found else value


def shown(kind: str, stored_value: str) -> str:
    """A stored target as the user gave it (``webhook:env:HOOK`` for ``${HOOK}``), never the secret itself."""
    found = _STORED_ENV.fullmatch(stored_value)
    return f"{kind}:env:{found.group(1)}" if found else f"{kind}:{stored_value}"


def parse_target(text: str) -> Target:
    """``KIND:TARGET`` → Target; ValueError with the one-line reason. ``datahub:URL`` may go on with
    ``,KEY=VALUE`` options (:data:`DATAHUB_OPTIONS`)."""
    kind, _, value = text.partition(":")
    if kind not in KINDS:
        raise ValueError(f"{text!r}: the kind is one of {', '.join(KINDS)} (e.g. slack:https://hooks...)")
    options: tuple[tuple[str, str], ...] = ()
    if kind == DATAHUB:
        value, *pairs = value.split(",")
        options = _datahub_options(text, pairs)
    if not value:
        raise ValueError(f"{text!r}: give the target after '{kind}:' (a URL, an address, or env:NAME)")
    if value.startswith("env:"):
        if not _ENV.fullmatch(value):
            raise ValueError(f"{text!r}: env: takes an environment variable name (env:SLACK_WEBHOOK)")
    elif kind == "email" and not re.fullmatch(r"[^@\s,]+@[^@\s,]+", value):
        raise ValueError(f"{text!r}: not an email address")
    elif kind != "email" and not re.match(r"https?://", value):
        raise ValueError(f"{text!r}: a {kind} target is an http(s):// URL or env:NAME")
    return Target(kind, value, options)


def _datahub_options(text: str, pairs: list[str]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if key not in DATAHUB_OPTIONS or not sep:
            raise ValueError(f"{text!r}: after the URL come KEY=VALUE options: {', '.join(DATAHUB_OPTIONS)}")
        if key in found:
            raise ValueError(f"{text!r}: {key}= is given twice")
        if not value:
            raise ValueError(f"{text!r}: {key}= needs a value ({DATAHUB_OPTIONS[key]})")
        if key == "token" and not _ENV.fullmatch(value):
            raise ValueError(f"{text!r}: the token is read from the environment: token=env:NAME")
        if key == "env" and not re.fullmatch(r"[A-Za-z_]+", value):
            raise ValueError(f"{text!r}: env= is a DataHub environment such as PROD or DEV")
        found[key] = value.upper() if key == "env" else value
    return tuple(found.items())


def missing_plugin() -> str:
    """What a DataHub target says where DataHub's GX plugin is not installed."""
    return "DataHub's GX plugin is not installed here (pip install 'dqx-gx[datahub]')"


def require_plugins(targets: Iterable[Target]) -> None:
    """Refuse targets whose sender is not installed here (ValueError, one line): a ``datahub`` target needs
    DataHub's GX plugin. Nothing is imported."""
    for target in targets:
        if target.kind == DATAHUB and importlib.util.find_spec(DATAHUB_PLUGIN) is None:
            raise ValueError(f"--notify {target}: {missing_plugin()}")


def fires(outcome: Outcome, notify_on: NotifyOn) -> bool:
    """Whether a run with this verdict alerts: ``rejected`` only on rejected runs, ``warnings`` also on
    passed_with_warnings, ``always`` on every run."""
    return notify_on == "always" or outcome == "rejected" or (notify_on == "warnings" and outcome != "passed")


_MISSED: ContextVar[list[str] | None] = ContextVar("dqx_gx_not_delivered", default=None)


@contextlib.contextmanager
def deliveries() -> Iterator[list[str]]:
    """Inside the block, the messages of what the checkpoint's actions could not deliver are also added to
    the list it gives (a run's report carries them)."""
    missed: list[str] = []
    token = _MISSED.set(missed)
    try:
        yield missed
    finally:
        _MISSED.reset(token)


def not_delivered(message: str) -> None:
    """Say that an alert or a run's results did not arrive: a :class:`~dqx_gx.errors.NotDelivered` warning,
    and a line of the run's report when the run collects them (:func:`deliveries`)."""
    missed = _MISSED.get()
    if missed is not None:
        missed.append(message)
    warn_contract(message, category=NotDelivered, stacklevel=2)
