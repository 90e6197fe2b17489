"""The check parts of this project's JSON Schemas, generated from the kinds' words.

``schemas/dqx-implementation.schema.json`` (an ``engine: dqx`` rule's implementation) and
``schemas/dqx-native-contract.schema.json`` (the native format) are written by hand except where they
speak of checks: the enum of check names, each option's schema, and the conditions tying options to
checks (what a check needs, what it refuses, which checks an option applies to). Those parts are
derived here from :attr:`Kind.words <dqx_gx.kinds.kind.Kind.words>` and rewritten in place by
``python -m dqx_gx.kinds.generate``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from dqx_gx.kinds.catalog import CHECKS
from dqx_gx.kinds.words import Check, Format


def joined(words: Iterable[str]) -> str:
    """``a, b and c``."""
    items = list(words)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _checks(format: Format) -> list[Check]:
    return [check for _, check in CHECKS[format].values()]


def _when(format: Format, names: list[str]) -> dict[str, Any]:
    """The ``if`` of a condition on the check's name."""
    return {"type": "object", "properties": {format.key: {"enum": names}}, "required": [format.key]}


def _who(format: Format, names: list[str]) -> str:
    """``check 'min'``, or ``check '{check}'`` (filled in with the name given) for several checks."""
    return f"{format.noun} '{names[0]}'" if len(names) == 1 else f"{format.noun} '{{{format.key}}}'"


def _grouped(pairs: Iterable[tuple[str, str]]) -> Iterator[tuple[list[str], list[str]]]:
    """(option, check) pairs as groups of options shared by exactly the same checks, in first-seen order."""
    checks: dict[str, list[str]] = {}
    for option, check in pairs:
        checks.setdefault(option, []).append(check)
    groups: dict[tuple[str, ...], list[str]] = {}
    for option, names in checks.items():
        groups.setdefault(tuple(names), []).append(option)
    for shared, options in groups.items():
        yield options, list(shared)


def conditions(format: Format) -> list[dict[str, Any]]:
    """What each check of ``format`` needs and refuses, and which checks an exclusive option applies to."""
    checks = _checks(format)
    found: list[dict[str, Any]] = []
    for options, names in _grouped((option, check.name) for check in checks for option in check.required):
        needs = " and ".join(f"'{option}:'" for option in options)
        option = next(o for c in checks for o in c.takes if o.name == options[0])
        hint = f" {option.needs}" if len(options) == 1 and option.needs else ""
        message = f"{_who(format, names)} needs {needs}{hint}"
        found.append({"if": _when(format, names), "then": {"required": options, "x-message": message}})
    for check in checks:
        if check.one_of:
            either = " or ".join(f"'{option}:'" for option in check.one_of)
            message = f"{_who(format, [check.name])} needs exactly one of {either}"
            either_one = {"oneOf": [{"required": [o]} for o in check.one_of], "x-message": message}
            found.append({"if": _when(format, [check.name]), "then": either_one})
        if check.refuses:
            refused = [{"required": [key]} for key in check.refuses]
            message = f"{_who(format, [check.name])} {check.why}"
            refusal = {"not": refused[0] if len(refused) == 1 else {"anyOf": refused}, "x-message": message}
            found.append({"if": _when(format, [check.name]), "then": refusal})
    exclusive = ((o.name, check.name) for check in checks for o in check.takes if o.exclusive)
    for options, names in _grouped(exclusive):
        verb = "applies" if len(options) == 1 else "apply"
        message = f"{joined(options)} {verb} only to {joined(names)}, not to {{value}}"
        given: dict[str, Any] = {"type": "object"}
        if len(options) == 1:
            given["required"] = options
        else:
            given["anyOf"] = [{"required": [o]} for o in options]
        found.append({"if": given, "then": {"properties": {format.key: {"enum": names, "x-message": message}}}})
    return found


def check_schema(format: Format, written: dict[str, Any]) -> dict[str, Any]:
    """``written`` (the schema of one check, as committed) with its check parts derived anew."""
    names = list(CHECKS[format])
    properties = dict(written["properties"])
    properties[format.key] = {
        "enum": names,
        "x-message": f"{format.unknown} {{value}}; expected one of: {', '.join(names)}",
    }
    for check in _checks(format):
        for option in check.takes:
            properties[option.name] = dict(option.schema)
    return {**written, "properties": properties, "allOf": conditions(format)}


def generated(name: str, written: dict[str, Any]) -> dict[str, Any]:
    """The schema ``name`` (``dqx-implementation`` or ``dqx-native-contract``) with its check parts derived."""
    if name == "dqx-implementation":
        return check_schema(Format.DQX, written)
    definitions = dict(written["$defs"])
    definitions["columnCheck"] = check_schema(Format.NATIVE_COLUMN, definitions["columnCheck"])
    definitions["tableCheck"] = check_schema(Format.NATIVE_TABLE, definitions["tableCheck"])
    return {**written, "$defs": definitions}
