"""JSON pointers (RFC 6901) into a contract document: how rules name what they check.

The loaders name places by their JSON path (``schema[0].properties[2].quality[1]``, as in error
messages); a rule's ``sources`` are the same places as pointers (``/schema/0/properties/2/quality/1``),
which any JSON tool resolves.
"""

from __future__ import annotations

import re
from dataclasses import replace

from dqx_gx.rules.rule import Rule

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def pointer(path: str) -> str:
    """The pointer of a loader's JSON path: ``schema[0].properties[2]`` → ``/schema/0/properties/2``."""
    return "".join(f"/{escape(key or index)}" for key, index in _STEP.findall(path))


def under(base: str, *keys: str | int) -> str:
    """The pointer of what sits at ``keys`` under ``base``, each key escaped."""
    return base + "".join(f"/{escape(str(key))}" for key in keys)


def escape(key: str) -> str:
    """One reference token: ``~`` as ``~0`` and ``/`` as ``~1`` (RFC 6901 §3)."""
    return key.replace("~", "~0").replace("/", "~1")


def located(rule: Rule) -> Rule:
    """The rule with its ``sources``: where the loader placed it (its id), unless it names them itself."""
    return rule if rule.sources else replace(rule, sources=(pointer(rule.id),))
