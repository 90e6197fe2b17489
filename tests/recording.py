"""A real HTTP server on 127.0.0.1 that records what is posted to it: it stands in for a webhook, Slack, Teams or
DataHub's metadata service (GMS). Stopped when the block ends, also when the test fails."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REFUSES = "/refuses"
"""Posts to this path are answered 500."""
SLOW = "/slow"
"""Posts to this path are answered after :data:`SLOW_SECONDS`."""
SLOW_SECONDS = 3.0


@dataclass
class Post:
    path: str
    body: Any
    headers: dict[str, str]


@dataclass
class Recorded:
    """What the server was sent, in order."""

    posts: list[Post] = field(default_factory=list)

    def on(self, path: str) -> list[Any]:
        """The JSON bodies posted to ``path``."""
        return [post.body for post in self.posts if post.path == path]

    def proposals(self) -> list[dict[str, Any]]:
        """DataHub's metadata change proposals (``/aspects?action=ingestProposal``), each with its aspect's value
        parsed: ``{"entityUrn", "aspectName", "changeType", "value"}``."""
        found = []
        for body in self.on("/aspects?action=ingestProposal"):
            proposal = body["proposal"]
            found.append(
                {
                    "entityUrn": proposal["entityUrn"],
                    "aspectName": proposal["aspectName"],
                    "changeType": proposal["changeType"],
                    "value": json.loads(proposal["aspect"]["value"]),
                }
            )
        return found


@contextmanager
def recording_server() -> Iterator[tuple[str, Recorded]]:
    """A server on a free port of 127.0.0.1: its base URL and what it records."""
    recorded = Recorded()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            recorded.posts.append(Post(self.path, json.loads(self.rfile.read(length)), dict(self.headers)))
            if self.path == SLOW:
                time.sleep(SLOW_SECONDS)
            self.send_response(500 if self.path == REFUSES else 200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *_: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", recorded
    finally:
        httpd.shutdown()
        httpd.server_close()


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on: a connection to it is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
