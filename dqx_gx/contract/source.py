"""Read a contract source (path, YAML text or mapping) into a plain document.

Contracts come from people and tools we do not control, so this is the one place
where untrusted bytes become Python objects. PyYAML's safe loader is the base;
on top of it this module refuses what would otherwise pass silently or blow up
later: duplicate keys (YAML says last-one-wins), several documents in one file,
alias bombs (shared nodes that expand exponentially when walked), very deep
nesting, binary data and oversized files. Timestamps are kept as text, as JSON
Schema expects: ``2024-01-01`` stays the string it is in a JSON contract.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from dqx_gx.errors import ContractValidationError

MAX_BYTES = 10 * 1024 * 1024
"""Largest contract accepted. Real contracts are kilobytes; the limit keeps a
stray data file passed by mistake from being parsed."""

MAX_EXPANDED_NODES = 200_000
"""Most YAML nodes a document may expand to once aliases are followed: many times what the largest real
contract has, while pure-Python YAML nodes cost hundreds of bytes and microseconds each, so the limit
also bounds how long a refusal takes."""

MAX_DEPTH = 64
"""Deepest nesting accepted (ODCS contracts nest about ten levels)."""


@dataclass(frozen=True)
class Document:
    """A parsed contract document and where it came from (for error messages)."""

    data: dict[str, Any]
    origin: str
    lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """The YAML line of each value by JSON path (``schema[0].quality[2].mustBeBetween``); empty for a mapping."""

    def line_of(self, path: str) -> int | None:
        """The line of ``path``, else of the nearest enclosing value that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None


def read_document(source: str | os.PathLike[str] | Mapping[str, Any] | Document) -> Document:
    """Return the mapping a contract source holds.

    ``source`` is a path (``str`` or ``PathLike``), YAML text, or an already
    parsed mapping. A ``str`` is read as YAML text when it holds a line break or
    names no existing file.
    """
    if isinstance(source, Document):
        return source
    if isinstance(source, Mapping):
        data = dict(source)
        _check_shape_of_mapping(data, "<mapping>")
        return Document(data, "<mapping>")
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source and _looks_like_path(source)):
        path = Path(source)
        data, lines = _parse(_read_file(path), str(path))
        return Document(data, str(path), lines)
    if isinstance(source, str):
        if len(source.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            raise ContractValidationError(f"<text>: contract text is larger than {_mib(MAX_BYTES)}")
        data, lines = _parse(source, "<text>")
        return Document(data, "<text>", lines)
    raise ContractValidationError(
        f"a contract source must be a path, YAML text or a mapping, got {type(source).__name__}"
    )


def parse_yaml_fragment(text: str, where: str) -> Any:
    """Parse YAML embedded in a contract (e.g. an ``implementation:`` block) with the same guards."""
    return _parse_any(text, where)[0]


def _looks_like_path(text: str) -> bool:
    try:
        if Path(text).exists():
            return True
    except (OSError, ValueError):  # too long or not a valid name: it is text
        return False
    # A one-line string that is not a file: YAML text only when it has a mapping in it.
    return ":" not in text


def _read_file(path: Path) -> str:
    try:
        status = path.stat()
    except FileNotFoundError:
        raise ContractValidationError(f"{path}: no such contract file") from None
    except OSError as exc:
        raise ContractValidationError(f"{path}: cannot read the contract file ({exc.strerror})") from None
    except ValueError:  # a NUL byte: no file has such a name
        raise ContractValidationError(f"{str(path)!r}: no such contract file (a file name holds no NUL byte)") from None
    if stat.S_ISDIR(status.st_mode):
        raise ContractValidationError(f"{path}: is a directory, not a contract file")
    size = status.st_size
    if size > MAX_BYTES:
        raise ContractValidationError(
            f"{path}: file is {_mib(size)}; contracts larger than {_mib(MAX_BYTES)} are refused"
        )
    try:
        # At most one byte more than allowed: a device or pipe reports size 0 and may never end.
        with path.open("rb") as stream:
            raw = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ContractValidationError(f"{path}: cannot read the contract file ({exc.strerror})") from None
    if len(raw) > MAX_BYTES:
        raise ContractValidationError(
            f"{path}: more than {_mib(MAX_BYTES)} to read; contracts larger than {_mib(MAX_BYTES)} are refused"
        )
    if b"\x00" in raw:
        raise ContractValidationError(f"{path}: holds binary data (NUL bytes), not YAML text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ContractValidationError(f"{path}: is not UTF-8 text (invalid byte at offset {exc.start})") from None


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _parse(text: str, origin: str) -> tuple[dict[str, Any], Mapping[str, int]]:
    data, lines = _parse_any(text, origin)
    if data is None:
        raise ContractValidationError(f"{origin}: the document is empty")
    if not isinstance(data, dict):
        raise ContractValidationError(
            f"{origin}: a contract must be a YAML mapping at the top level, got {_yaml_kind(data)}"
        )
    return data, lines


def _parse_any(text: str, origin: str) -> tuple[Any, Mapping[str, int]]:
    if "\x00" in text:
        raise ContractValidationError(f"{origin}: holds binary data (NUL bytes), not YAML text")
    try:
        loader = _ContractLoader(text, origin)
    except yaml.reader.ReaderError as exc:  # PyYAML's reader checks the whole text first
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - text.rfind("\n", 0, exc.position)
        raise ContractValidationError(
            f"{origin}: invalid YAML: character #x{exc.character:04x} is not allowed (line {line}, column {column})"
        ) from None
    try:
        node = loader.get_single_node_or_refuse()
        if node is None:
            return None, MappingProxyType({})
        _check_expansion(node, origin)
        return loader.construct_document(node), _line_map(node)
    except ContractValidationError:
        raise
    except yaml.MarkedYAMLError as exc:
        raise ContractValidationError(f"{origin}: invalid YAML: {_describe_yaml_error(exc)}") from None
    except yaml.YAMLError as exc:
        raise ContractValidationError(f"{origin}: invalid YAML: {exc}") from None
    except RecursionError:
        raise ContractValidationError(f"{origin}: YAML is nested too deeply") from None
    finally:
        loader.dispose()


def _describe_yaml_error(exc: yaml.MarkedYAMLError) -> str:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or exc.context or "cannot parse"
    if mark is None:
        return problem
    return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"


def _yaml_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    return f"a {type(value).__name__}"


def _check_expansion(root: yaml.Node, origin: str) -> None:
    """Refuse documents whose alias-expanded size or depth is out of bounds.

    Sizes are memoised per node, so a billion-laughs document is measured in
    time linear in its text, never expanded.
    """
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    # Iterative post-order walk: the document may be deeper than Python's stack.
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = _children(node)
        if not children_done:
            if key in on_path:
                raise ContractValidationError(f"{origin}: YAML alias refers to itself (recursive structure)")
            on_path.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            if len(on_path) > MAX_DEPTH:
                raise ContractValidationError(f"{origin}: YAML is nested deeper than {MAX_DEPTH} levels")
            continue
        on_path.discard(key)
        size = 1 + sum(sizes[id(child)] for child in children)
        depth = 1 + max((depths[id(child)] for child in children), default=0)
        if size > MAX_EXPANDED_NODES:
            raise ContractValidationError(
                f"{origin}: YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes (alias bomb?)"
            )
        if depth > MAX_DEPTH:
            raise ContractValidationError(f"{origin}: YAML is nested deeper than {MAX_DEPTH} levels")
        sizes[key] = size
        depths[key] = depth


def _line_map(root: yaml.Node) -> Mapping[str, int]:
    """The line (1-based) where each value starts, by JSON path; a mapping entry's line is its key's.

    Aliased nodes are walked once per use, within the bound ``_check_expansion`` has checked.
    """
    lines: dict[str, int] = {}
    stack: list[tuple[str, yaml.Node]] = [("", root)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key_node, value in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                    child = f"{path}.{key_node.value}" if path else str(key_node.value)
                    lines.setdefault(child, key_node.start_mark.line + 1)
                    stack.append((child, value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                child = f"{path}[{index}]"
                lines.setdefault(child, item.start_mark.line + 1)
                stack.append((child, item))
    return MappingProxyType(lines)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_shape_of_mapping(data: Any, origin: str) -> None:
    """Depth check for mappings handed in directly (they never went through YAML)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if depth > MAX_DEPTH:
            raise ContractValidationError(f"{origin}: nested deeper than {MAX_DEPTH} levels")
        if seen > MAX_EXPANDED_NODES:
            raise ContractValidationError(f"{origin}: has more than {MAX_EXPANDED_NODES:,} values")
        if isinstance(value, Mapping):
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list | tuple):
            stack.extend((item, depth + 1) for item in value)


class _ContractLoader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as text and refuses duplicate keys."""

    yaml_implicit_resolvers = {  # noqa: RUF012 - PyYAML's own class attribute
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, stream: str, origin: str) -> None:
        super().__init__(stream)
        self._origin = origin
        self._composed = 0
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Bound size and depth while composing, not only after.

        Pure-Python nodes cost about 700 bytes each: a flat 10 MiB document would become
        millions of them (gigabytes, minutes) before the expansion check could refuse it,
        and deep nesting would exhaust the stack. Both limits give the verdict the
        expansion check would, since a document expands to at least the nodes it holds.
        """
        self._composed += 1
        if self._composed > MAX_EXPANDED_NODES:
            raise ContractValidationError(f"{self._origin}: YAML holds more than {MAX_EXPANDED_NODES:,} nodes")
        if self._depth >= MAX_DEPTH:
            raise ContractValidationError(f"{self._origin}: YAML is nested deeper than {MAX_DEPTH} levels")
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node_or_refuse(self) -> yaml.Node | None:
        self.get_event()  # type: ignore[no-untyped-call]  # StreamStart
        node: yaml.Node | None = None
        if not self.check_event(yaml.StreamEndEvent):
            node = self.compose_document()
        if not self.check_event(yaml.StreamEndEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            line = event.start_mark.line + 1 if event.start_mark else "?"
            raise ContractValidationError(
                f"{self._origin}: holds more than one YAML document (a second one starts at line {line}); "
                "put one contract in each file"
            )
        return node

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping",
                    node.start_mark,
                    "found an unhashable key",
                    key_node.start_mark,
                ) from None
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"duplicate key {key!r} (first at line {first.start_mark.line + 1}); "
                    "YAML would silently keep only the last one",
                    key_node.start_mark,
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def _unknown_tag(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    raise yaml.constructor.ConstructorError(
        None, None, f"the YAML tag {node.tag!r} is not allowed in a contract", node.start_mark
    )


_ContractLoader.add_constructor(None, _unknown_tag)
