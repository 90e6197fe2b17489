"""What a piece of code asks of a classic session's gateway (py4j), for tests of what dqx-gx saves there."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from py4j.clientserver import ClientServerConnection


def commands_sent(build: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of gateway command (``c`` a call, ``r`` reflection …) that ``build`` sends (not py4j's
    finalizer thread, which deletes dropped objects whenever it runs)."""
    return [command[0] for command in _sent(build, monkeypatch, every_thread=False)]


def methods_called(build: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Java methods ``build`` calls through the gateway (``expr``, ``as``, ``add`` …), from any thread (a run
    answers some queries on threads of its own; py4j's finalizer only deletes, which is no call)."""
    return [
        command.split("\n")[2] for command in _sent(build, monkeypatch, every_thread=True) if command.startswith("c\n")
    ]


def _sent(build: Callable[[], object], monkeypatch: pytest.MonkeyPatch, every_thread: bool) -> list[str]:
    sent: list[str] = []
    send, this_thread = ClientServerConnection.send_command, threading.get_ident()

    def counted(connection: ClientServerConnection, command: str) -> object:
        if every_thread or threading.get_ident() == this_thread:
            sent.append(command)
        return send(connection, command)

    with monkeypatch.context() as patched:
        patched.setattr(ClientServerConnection, "send_command", counted)
        build()
    return sent
