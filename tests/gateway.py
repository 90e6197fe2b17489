"""What a piece of code asks of a classic session's gateway (py4j), for tests of what dqx-gx saves there."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from py4j.clientserver import ClientServerConnection


def commands_sent(build: Callable[[], object], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kinds of gateway command (``c`` a call, ``r`` reflection …) that ``build`` sends (not py4j's
    finalizer thread, which deletes dropped objects whenever it runs)."""
    sent: list[str] = []
    send, this_thread = ClientServerConnection.send_command, threading.get_ident()

    def counted(connection: ClientServerConnection, command: str) -> object:
        if threading.get_ident() == this_thread:
            sent.append(command[0])
        return send(connection, command)

    with monkeypatch.context() as patched:
        patched.setattr(ClientServerConnection, "send_command", counted)
        build()
    return sent
