"""JSON Schema validation: the official ODCS schema and the schemas this project owns.

The ODCS schema is the one shipped in the ``open-data-contract-standard`` package
(never a copy). Our own schemas live in the repository's ``schemas/`` folder and
carry their human error messages in an ``x-message`` keyword next to the
constraint, so the schema stays the single statement of what is valid.
"""

from __future__ import annotations

import ast
import copy
import difflib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft201909Validator, Draft202012Validator
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from dqx_gx.errors import shown

MAX_REPORTED = 8
"""Problems listed in one error message; the rest are counted."""


@dataclass(frozen=True)
class Problem:
    """One schema violation: where (a JSON path) and what."""

    path: tuple[str | int, ...]
    message: str
    error: ValidationError

    @property
    def location(self) -> str:
        return json_path(self.path)

    @property
    def text(self) -> str:
        """``location: message``, or the message alone for a problem of the whole document."""
        where = self.location
        return f"{where}: {self.message}" if where else self.message


def json_path(path: Iterable[str | int]) -> str:
    """``('schema', 0, 'quality', 1)`` → ``schema[0].quality[1]``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


@cache
def _odcs_schema() -> dict[str, Any]:
    text = resources.files("open_data_contract_standard").joinpath("schema.json").read_text("utf-8")
    return _guard_logical_type_conditionals(json.loads(text))


@cache
def odcs_validator(definition: str | None = None) -> Validator:
    """Validator for the ODCS JSON Schema shipped in ``open-data-contract-standard``,
    or for one of its ``$defs`` (e.g. ``SchemaProperty``)."""
    schema = _odcs_schema()
    if definition is not None:
        schema = {"$schema": schema["$schema"], "$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return Draft201909Validator(schema)


def odcs_problems(document: dict[str, Any]) -> list[Problem]:
    """ODCS schema violations of a whole document, in time linear in its size.

    Validated as one piece, nested properties cost time exponential in their
    depth (``unevaluatedProperties`` re-evaluates each child under every
    ``if`` branch of its parent; minutes for a deeply nested contract). So every
    property object is validated once, at its own level, against its own
    definition, with its children taken out (its property list left empty)
    and validated in turn. The verdict is the official schema's, less the echo
    a child's mistake would leave at each parent; only the order of work changes.
    """
    found: list[Problem] = []
    valid_shapes: set[tuple[str | None, str]] = set()
    pending: list[tuple[tuple[str | int, ...], str | None, Any]] = [((), None, document)]
    while pending:
        path, definition, instance = pending.pop()
        shallow, children = _detach_children(instance, path, definition)
        pending.extend(children)
        shape = (definition, _shape(shallow))
        if shape in valid_shapes:
            continue
        shallow_problems = problems(odcs_validator(definition), shallow)
        if not shallow_problems:
            valid_shapes.add(shape)
        found.extend(Problem(path + p.path, p.message, p.error) for p in shallow_problems)
    return sorted(found, key=lambda p: (_sortable(p.path), p.message))


def _shape(instance: Any) -> str:
    """``instance`` with the text of its free-text fields left out: a property object valid in one shape is
    valid in any (a big contract's hundreds of fields come in a few shapes). Only validity is shared: a
    property object with a problem is always validated as it is, for the messages."""
    free = _free_text_keys()
    if isinstance(instance, dict):
        instance = {k: None if k in free and isinstance(v, str) else v for k, v in instance.items()}
    return json.dumps(instance, sort_keys=True, default=repr)


@cache
def _free_text_keys() -> frozenset[str]:
    """The keys of a property object whose schema asks a string and nothing of it (no pattern, format, enum,
    length) and which no conditional of the property schema reads or declares (its ``allOf`` clauses but the
    plain ``$ref`` to the declarations): whatever their text, the verdict is the same."""
    defs = _odcs_schema()["$defs"]
    declared = {**defs["SchemaElement"].get("properties", {}), **defs["SchemaBaseProperty"].get("properties", {})}
    clauses = defs["SchemaBaseProperty"].get("allOf", [])
    conditional = _property_names([c for c in clauses if not (isinstance(c, dict) and set(c) == {"$ref"})])
    return frozenset(
        key
        for key, rule in declared.items()
        if isinstance(rule, dict)
        and rule.get("type") == "string"
        and set(rule) <= {"type", "description", "examples", "default"}
        and key not in conditional
    )


_SAME_LEVEL = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")


def _property_names(schema: Any) -> set[str]:
    """The keys a part of a JSON Schema reads or declares on the object it applies to (not on the objects
    inside it), through its combinators and conditionals."""
    if isinstance(schema, list):
        return {name for part in schema for name in _property_names(part)}
    if not isinstance(schema, dict):
        return set()
    names = set(schema["properties"]) if isinstance(schema.get("properties"), dict) else set()
    names |= set(schema["required"]) if isinstance(schema.get("required"), list) else set()
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        names |= _property_names(_odcs_schema()["$defs"].get(reference.removeprefix("#/$defs/")))
    return names | {name for key in _SAME_LEVEL for name in _property_names(schema.get(key))}


def _detach_children(
    instance: Any, path: tuple[str | int, ...], definition: str | None
) -> tuple[Any, list[tuple[tuple[str | int, ...], str, Any]]]:
    """A copy of ``instance`` whose nested property objects are empty, and those objects."""
    if not isinstance(instance, dict):
        return instance, []
    children: list[tuple[tuple[str | int, ...], str, Any]] = []
    if definition is None:  # the document: schema objects keep their own fields
        schema = instance.get("schema")
        if not isinstance(schema, list):
            return instance, []
        objects = []
        for i, obj in enumerate(schema):
            shallow, nested = _detach_property_list(obj, ("schema", i))
            objects.append(shallow)
            children.extend(nested)
        return {**instance, "schema": objects}, children
    return _detach_property_list(instance, path, item_slots=True)


def _detach_property_list(
    obj: Any, path: tuple[str | int, ...], *, item_slots: bool = False
) -> tuple[Any, list[tuple[tuple[str | int, ...], str, Any]]]:
    if not isinstance(obj, dict):
        return obj, []
    shallow = dict(obj)
    children: list[tuple[tuple[str | int, ...], str, Any]] = []
    if isinstance(obj.get("properties"), list):
        listed = obj["properties"]
        # the schema bounds neither the list's length nor its entries' sameness: an empty list gives the same
        # verdict without validating a stand-in per child; an entry that is no object keeps its place for its error
        objects = all(isinstance(p, dict) for p in listed)
        shallow["properties"] = [] if objects else [{"name": "_"} if isinstance(p, dict) else p for p in listed]
        children.extend(
            ((*path, "properties", i), "SchemaProperty", p)
            for i, p in enumerate(obj["properties"])
            if isinstance(p, dict)
        )
    if item_slots and isinstance(obj.get("items"), dict):
        shallow["items"] = {}
        children.append(((*path, "items"), "SchemaItemProperty", obj["items"]))
    if item_slots and isinstance(obj.get("map"), dict):
        shallow["map"] = {k: ({} if isinstance(v, dict) else v) for k, v in obj["map"].items()}
        children.extend(
            ((*path, "map", k), "SchemaItemProperty", v) for k, v in obj["map"].items() if isinstance(v, dict)
        )
    return shallow, children


def _guard_logical_type_conditionals(schema: dict[str, Any]) -> dict[str, Any]:
    """Apply the upstream fix for bitol-io/open-data-contract-standard#322.

    The 3.2.0 schema's per-logicalType ``if`` clauses lack ``required:
    [logicalType]``, so a property with no logicalType matches every ``if`` and
    is told "'map' is a required property". The fix merged upstream (PRs #324,
    #328) adds the guard; the package on PyPI predates it.
    """
    schema = copy.deepcopy(schema)
    for clause in schema["$defs"]["SchemaBaseProperty"].get("allOf", []):
        condition = clause.get("if")
        if not isinstance(condition, dict):
            continue
        branches = condition.get("anyOf", [condition])
        for branch in branches:
            if "logicalType" in branch.get("properties", {}):
                required = branch.setdefault("required", [])
                if "logicalType" not in required:
                    required.append("logicalType")
    return schema


def schemas_dir() -> Path:
    """Where this project's own JSON Schemas are: inside the wheel, or ``schemas/`` in a checkout."""
    packaged = Path(__file__).resolve().parents[1] / "_schemas"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "schemas"


@cache
def own_validator(name: str) -> Validator:
    """Validator for one of this project's schemas, e.g. ``dqx-implementation``."""
    schema = json.loads((schemas_dir() / f"{name}.schema.json").read_text("utf-8"))
    return Draft202012Validator(schema)


def problems(validator: Validator, instance: Any) -> list[Problem]:
    """All violations, most specific first within each location, sorted by location."""
    found = [_named_keys(validator, _most_specific(error)) for error in validator.iter_errors(instance)]
    unique: dict[tuple[tuple[str | int, ...], str], Problem] = {}
    for problem in found:
        unique.setdefault((problem.path, problem.message), problem)
    return sorted(unique.values(), key=lambda p: (_sortable(p.path), p.message))


_UNEXPECTED_KEYS = ("additionalProperties", "unevaluatedProperties")
_LISTED = re.compile(r"\((.*) (?:was|were) unexpected\)")


def _named_keys(validator: Validator, problem: Problem) -> Problem:
    """An unexpected-key problem that names only the keys at fault, each with its likely spelling.

    When one key of a mapping breaks every branch of a ``oneOf``, JSON Schema's unevaluated-properties
    check lists every key as unexpected (``'arguments', 'metric', 'mustbe' were unexpected``). The keys
    at fault are those no branch declares.
    """
    error = problem.error
    schema_path = list(error.absolute_schema_path)
    if schema_path[-2:-1] == ["additionalProperties"] and error.absolute_path:  # a schema's own x-message
        owner = _schema_at(schema_path[:-2], validator.schema)
        key = str(error.absolute_path[-1])
        close = _likely(key, sorted(_declared_keys(owner, validator.schema)))
        return replace(problem, message=f"{problem.message}: did you mean {close!r}?") if close else problem
    if error.validator not in _UNEXPECTED_KEYS or not isinstance(error.instance, dict):
        return problem
    listed = _listed(error.message)
    if not listed:
        return problem
    declared = _declared_keys(error.schema, validator.schema)
    at_fault = [key for key in listed if key not in declared]
    if not at_fault:  # every key is declared somewhere: the mapping's combination is what is wrong
        return problem
    known = sorted(declared - set(error.instance))
    phrases = []
    for key in at_fault:
        close = _likely(key, known)
        fix = f"did you mean {close!r}?" if close else "remove it or correct its spelling"
        phrases.append(f"{key!r} is not allowed here: {fix}")
    return replace(problem, message="; ".join(phrases))


def _likely(key: str, known: Sequence[str]) -> str | None:
    """The declared key a misspelt one most likely meant (case first, then similarity), if any."""
    same_case = [k for k in known if k.lower() == key.lower()]
    close = same_case or difflib.get_close_matches(key, known, n=1, cutoff=0.75)
    return close[0] if close else None


def _listed(message: str) -> tuple[str, ...]:
    match = _LISTED.search(message)
    if match is None:
        return ()
    try:
        keys = ast.literal_eval(f"({match.group(1)},)")
    except (ValueError, SyntaxError):
        return ()
    return tuple(k for k in keys if isinstance(k, str))


def _schema_at(path: Sequence[str | int], root: Mapping[str, Any]) -> Any:
    """The schema fragment at a validation error's schema path (which steps through ``$ref`` silently)."""
    fragment: Any = root
    for part in path:
        while isinstance(fragment, Mapping) and part not in fragment and "$ref" in fragment:
            fragment = _resolved(fragment["$ref"], root)
        if isinstance(fragment, Mapping):
            fragment = fragment.get(part)
        elif isinstance(fragment, list) and isinstance(part, int) and part < len(fragment):
            fragment = fragment[part]
        else:
            return None
    return fragment


def _resolved(ref: Any, root: Mapping[str, Any]) -> Any:
    """The target of a local ``$ref`` (``#/$defs/Name``) in ``root``; None for any other reference."""
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return None
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part) if isinstance(target, Mapping) else None
    return target


def _declared_keys(schema: Any, root: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> set[str]:
    """The property names a schema fragment declares, through its combinators and local ``$ref``s."""
    if not isinstance(schema, Mapping):
        return set()
    keys = set(schema.get("properties") or ())
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref not in seen:
        keys |= _declared_keys(_resolved(ref, root), root, seen | {ref})
    for word in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(word) or ():
            keys |= _declared_keys(branch, root, seen)
    for word in ("if", "then", "else"):
        keys |= _declared_keys(schema.get(word), root, seen)
    return keys


def _sortable(path: Sequence[str | int]) -> tuple[tuple[int, str], ...]:
    return tuple((0, f"{p:09d}") if isinstance(p, int) else (1, p) for p in path)


def _most_specific(error: ValidationError) -> Problem:
    """Descend into ``oneOf``/``anyOf`` failures to the sub-error that says something useful."""
    chosen = error
    while chosen.context:
        deeper = _best_context(chosen)
        if deeper is None:
            break
        chosen = deeper
    message = chosen.schema.get("x-message") if isinstance(chosen.schema, dict) else None
    if isinstance(message, str):
        text = _fill(message, chosen)
    elif chosen.validator == "type":
        text = _type_message(chosen)
    else:
        text = chosen.message
    return Problem(tuple(chosen.absolute_path), text, chosen)


_TYPE_WORDS = {
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean (true/false)",
    "null": "null",
}
_VALUE_WORDS = {str: "string", bool: "boolean", int: "integer", float: "number", list: "list", dict: "mapping"}


def _type_message(error: ValidationError) -> str:
    """A type error as dqlib words it: the field, the type it must have and what it got
    (``'name' must be a string, got: integer (5)``)."""
    expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    wanted = " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in expected)
    field = error.absolute_path[-1] if error.absolute_path else "the document"
    got = "null" if error.instance is None else _VALUE_WORDS.get(type(error.instance), type(error.instance).__name__)
    name = f"{field!r}" if isinstance(field, str) else f"item {field}"
    return f"{name} must be {wanted}, got: {got} ({shown(error.instance)})"


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def _fill(template: str, error: ValidationError) -> str:
    """Fill an ``x-message``: ``{value}`` is the offending value, ``{key}`` the last path
    element, and any other ``{name}`` a string field of the offending mapping."""
    fields = _Fields()
    if isinstance(error.instance, dict):
        fields.update({str(k): str(v) for k, v in error.instance.items() if isinstance(v, str)})
    fields["value"] = shown(error.instance)
    fields["key"] = repr(error.absolute_path[-1]) if error.absolute_path else "?"
    return template.format_map(fields)


def _best_context(error: ValidationError) -> ValidationError | None:
    """The one sub-error worth showing, or None when the branches disagree (keep the summary)."""
    # a missing key or a failed choice deeper inside a branch (a struct field's description) says more
    relevant = [
        e
        for e in error.context or ()
        if e.validator not in ("required", "oneOf", "anyOf") or len(e.absolute_path) > len(error.absolute_path)
    ]
    deepest = max((len(e.absolute_path) for e in relevant), default=-1)
    if deepest <= len(error.absolute_path):
        return None
    candidates = [e for e in relevant if len(e.absolute_path) == deepest]
    return candidates[0] if len({e.message for e in candidates}) == 1 else None


def joined(origin: str, messages: Sequence[str]) -> str:
    """One problem on one line; several as a count and a bullet list (see :func:`summarise`)."""
    if len(messages) == 1:
        return f"{origin}: {messages[0]}"
    return "\n".join([f"{origin}: {len(messages)} problems:", *summarise(messages)])


def summarise(items: Sequence[str]) -> Iterator[str]:
    """Bullet lines for at most ``MAX_REPORTED`` problems, then a count of the rest."""
    for item in items[:MAX_REPORTED]:
        yield f"  - {item}"
    if len(items) > MAX_REPORTED:
        yield f"  … and {len(items) - MAX_REPORTED} more"
