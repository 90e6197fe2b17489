"""Rewrite the files derived from the kinds' words: the check parts of ``schemas/*.json`` and ``docs/checks.md``.

    python -m dqx_gx.kinds.generate

``tests/kinds/test_words.py`` fails while a committed file differs from what this writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from dqx_gx.files import write_atomically
from dqx_gx.kinds.docs_gen import reference
from dqx_gx.kinds.schema_gen import generated

ROOT = Path(__file__).resolve().parents[2]
"""The repository (the generated files are the checkout's, not the installed wheel's)."""

COMMAND = "python -m dqx_gx.kinds.generate"


def _schema(name: str) -> Callable[[], str]:
    def text() -> str:
        committed = json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text("utf-8"))
        return json.dumps(generated(name, committed), indent=2, ensure_ascii=False) + "\n"

    return text


DERIVED: Mapping[str, Callable[[], str]] = {
    "schemas/dqx-implementation.schema.json": _schema("dqx-implementation"),
    "schemas/dqx-native-contract.schema.json": _schema("dqx-native-contract"),
    "docs/checks.md": reference,
}
"""Each derived file (relative to the repository) and what it should hold."""


def main() -> None:
    for relative, text in DERIVED.items():
        if write_atomically(ROOT / relative, text().encode("utf-8")):
            print(f"rewrote {relative}")


if __name__ == "__main__":
    main()
