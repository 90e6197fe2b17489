"""Hostile contract sources: alias bombs, wrong shapes, duplicate keys, binary data, huge files, object tags, deep nesting.

Every one must end in a ``ContractValidationError`` with a message saying what is wrong, quickly and in
bounded memory: never a YAML, Unicode or recursion error, never a constructed Python object.
"""

from __future__ import annotations

import random
import re
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dqx_gx import ContractValidationError, load_contracts
from dqx_gx.contract import source
from dqx_gx.contract.source import MAX_BYTES, MAX_DEPTH, read_document
from tests.conftest import dedent

MIB = 1024 * 1024
CONTRACT_HEAD = "apiVersion: v3.1.0\nkind: DataContract\nid: c-1\nversion: 1.0.0\nstatus: active\n"


def refused(load: Callable[[], object], match: str | None, *, peak_mib: float = 200.0) -> str:
    """Run ``load``; it must raise ContractValidationError matching ``match`` in bounded memory.

    The bound on work is the memory peak, which does not depend on how loaded the machine is: a wall-clock
    bound would fail on a busy CI machine (speed is the benchmark's business, never a test's).
    """
    tracemalloc.start()
    try:
        with pytest.raises(ContractValidationError, match=match) as caught:
            load()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < peak_mib * MIB, f"peak memory {peak / MIB:.0f} MiB"
    return str(caught.value)


IMPLEMENTATION_HEAD = dedent("""
    apiVersion: v3.1.0
    kind: DataContract
    id: c-1
    version: 1.0.0
    status: active
    schema:
      - name: t
        properties:
          - name: a
            logicalType: integer
        quality:
          - name: hostile
            type: custom
            engine: dqx
            implementation: |
    """)


def odcs_with_implementation(implementation: str) -> str:
    """An otherwise valid ODCS contract whose one ``engine: dqx`` rule has this implementation text."""
    return IMPLEMENTATION_HEAD + "".join(f"          {line}\n" for line in implementation.splitlines())


# --- alias bombs ----------------------------------------------------------------------------------------


def _list_bomb(levels: int = 10, width: int = 10) -> str:
    lines = ["a0: &a0 [" + ", ".join(["lol"] * width) + "]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _map_bomb(levels: int = 10, width: int = 10) -> str:
    lines = ["m0: &m0 {" + ", ".join(f"k{j}: lol" for j in range(width)) + "}"]
    lines += [f"m{i}: &m{i} {{{', '.join(f'k{j}: *m{i - 1}' for j in range(width))}}}" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _merge_bomb(levels: int = 10, width: int = 10) -> str:
    """Merge keys (``<<``) pull each level into the next, beside aliases of it."""
    lines = ["m0: &m0 {" + ", ".join(f"k{j}: lol" for j in range(width)) + "}"]
    lines += [
        f"m{i}: &m{i} {{<<: *m{i - 1}, {', '.join(f'k{i}_{j}: *m{i - 1}' for j in range(width))}}}"
        for i in range(1, levels)
    ]
    return "\n".join(lines) + "\n"


def _merge_only_bomb(levels: int = 10, width: int = 10) -> str:
    """Only merge keys: ``<<: [*m, *m, …]`` at every level."""
    lines = ["m0: &m0 {" + ", ".join(f"k{j}: lol" for j in range(width)) + "}"]
    lines += [f"m{i}: &m{i} {{<<: [{', '.join([f'*m{i - 1}'] * width)}], x{i}: 1}}" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _bomb_in_a_contract() -> str:
    """A billion laughs under ``customProperties`` of an otherwise valid contract."""
    return (
        CONTRACT_HEAD
        + "schema: [{name: t}]\ncustomProperties:\n"
        + "".join(f"  {line}\n" for line in _list_bomb().splitlines())
    )


BOMBS = {
    "nested lists": _list_bomb(),
    "nested maps": _map_bomb(),
    "merge keys beside aliases": _merge_bomb(),
    "merge keys only": _merge_only_bomb(),
    "inside a contract": _bomb_in_a_contract(),
}


@pytest.mark.parametrize("text", BOMBS.values(), ids=BOMBS.keys())
def test_alias_bombs_are_refused_fast_in_bounded_memory(text: str) -> None:
    """10 levels of 10 aliases each: 10**10 nodes once expanded, refused from the node graph alone."""
    assert yaml.compose(text, Loader=yaml.SafeLoader) is not None  # it is YAML, and a bomb only when walked
    message = refused(lambda: load_contracts(text), r"aliases expand to more than 200,000 nodes")
    assert message.startswith("<text>: ")


def test_alias_bomb_in_an_implementation_is_refused_and_names_the_rule() -> None:
    message = refused(
        lambda: load_contracts(odcs_with_implementation(_list_bomb())),
        r"aliases expand to more than 200,000 nodes",
    )
    assert "schema[0].quality[0] (line 12): Quality rule 'hostile': implementation: " in message


def test_a_recursive_alias_is_refused() -> None:
    refused(lambda: load_contracts("a: &x [b, *x]\n"), r"<text>: YAML alias refers to itself")


def test_a_flat_document_over_the_node_limit_is_refused_while_composing(monkeypatch: pytest.MonkeyPatch) -> None:
    """No aliases at all, just many nodes: refused once the limit is passed, not after composing them all.

    Pure-Python YAML nodes cost hundreds of bytes each, so a 10 MiB flow list would otherwise take
    gigabytes and minutes before any check could look at it. The limit is lowered to keep the test cheap.
    """
    monkeypatch.setattr(source, "MAX_EXPANDED_NODES", 10_000)
    text = "a: [" + "0, " * 200_000 + "0]\n"
    refused(lambda: load_contracts(text), r"^<text>: YAML holds more than 10,000 nodes$", peak_mib=50)


# --- the shape of the document --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "a contract must be a YAML mapping at the top level, got a list"),
        ("[apiVersion, kind]\n", "a contract must be a YAML mapping at the top level, got a list"),
        ("just some text\n", "a contract must be a YAML mapping at the top level, got a string"),
        ("42\n", "a contract must be a YAML mapping at the top level, got an integer"),
        ("3.5\n", "a contract must be a YAML mapping at the top level, got a number"),
        ("true\n", "a contract must be a YAML mapping at the top level, got a boolean"),
        ("2024-01-01\n", "a contract must be a YAML mapping at the top level, got a string"),
        ("null\n", "the document is empty"),
        ("~\n", "the document is empty"),
        ("# only a comment\n", "the document is empty"),
        ("", "the document is empty"),
    ],
    ids=[
        "block list",
        "flow list",
        "text",
        "integer",
        "number",
        "boolean",
        "date",
        "null",
        "tilde",
        "comment",
        "empty",
    ],
)
def test_a_document_that_is_not_a_mapping_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "contract.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ContractValidationError) as from_file:
        load_contracts(path)
    assert str(from_file.value) == f"{path}: {message}"
    if text:
        with pytest.raises(ContractValidationError) as from_text:
            load_contracts(text)
        assert str(from_text.value) == f"<text>: {message}"


@pytest.mark.parametrize("value", [["apiVersion", "v3.1.0"], None, 42, 4.2, b"apiVersion: v3.1.0\n", {"a", "b"}])
def test_a_source_that_is_no_path_text_or_mapping_is_refused(value: Any) -> None:
    with pytest.raises(
        ContractValidationError, match=r"^a contract source must be a path, YAML text or a mapping, got"
    ):
        load_contracts(value)


# --- duplicate keys and several documents ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            CONTRACT_HEAD + "name: first\nschema: [{name: t}]\nname: second\n",
            "duplicate key 'name' (first at line 6); YAML would silently keep only the last one (line 8, column 1)",
        ),
        (
            CONTRACT_HEAD + "schema:\n  - name: t\n    properties:\n      - name: a\n        logicalType: integer\n"
            "        required: true\n        logicalType: string\n",
            "duplicate key 'logicalType' (first at line 10); YAML would silently keep only the last one "
            "(line 12, column 9)",
        ),
        (
            CONTRACT_HEAD + "schema: [{name: t, physicalName: a, physicalName: b}]\n",
            "duplicate key 'physicalName' (first at line 6); YAML would silently keep only the last one "
            "(line 6, column 37)",
        ),
        ("null: a\n~: b\n", "duplicate key None (first at line 1); YAML would silently keep only the last one"),
        ("1: a\n0x1: b\n", "duplicate key 1 (first at line 1); YAML would silently keep only the last one"),
    ],
    ids=["top level", "nested block", "nested flow", "null spelled twice", "int spelled twice"],
)
def test_duplicate_keys_are_refused_with_the_key_and_both_lines(text: str, message: str) -> None:
    """YAML keeps the last of duplicate keys; a contract must not silently lose the first."""
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(text)
    assert str(caught.value).startswith(f"<text>: invalid YAML: {message}")


def test_a_duplicate_key_in_an_implementation_names_the_rule() -> None:
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(odcs_with_implementation("check: min\ncolumn: a\ncheck: max\n"))
    assert str(caught.value) == (
        "<text>: schema[0].quality[0] (line 12): Quality rule 'hostile': implementation: invalid YAML: duplicate key "
        "'check' (first at line 1); "
        "YAML would silently keep only the last one (line 3, column 1)"
    )


def test_a_merge_key_is_not_a_duplicate() -> None:
    """``<<`` merges are YAML's own way to repeat keys; the explicit key wins, as YAML specifies."""
    document = read_document("base: &b {x: 1, y: 2}\nderived: {<<: *b, x: 3}\n")
    assert document.data["derived"] == {"x": 3, "y": 2}


@pytest.mark.parametrize(
    ("text", "line"),
    [("a: 1\n---\nb: 2\n", 2), ("---\na: 1\n---\n", 3), ("a: 1\n...\n---\nb: 2\n", 3), ("a: 1\n--- b\n", 2)],
)
def test_several_documents_are_refused(text: str, line: int) -> None:
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(text)
    assert str(caught.value) == (
        f"<text>: holds more than one YAML document (a second one starts at line {line}); put one contract in each file"
    )


def test_one_document_with_explicit_markers_is_read() -> None:
    assert read_document("---\na: 1\n...\n").data == {"a": 1}


# --- binary data -----------------------------------------------------------------------------------------

GARBAGE_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_random_bytes_are_refused(tmp_path: Path) -> None:
    """Random bytes (with and without NULs) in a file: a ContractValidationError naming the file, never
    UnicodeDecodeError or a YAML error."""
    path = tmp_path / "garbage.yaml"
    messages: set[str] = set()

    @GARBAGE_SETTINGS
    @given(st.binary(min_size=1, max_size=4096), st.booleans())
    def check(data: bytes, drop_nuls: bool) -> None:
        path.write_bytes((data.replace(b"\x00", b"") or b"\xff") if drop_nuls else data)
        with pytest.raises(ContractValidationError) as caught:
            load_contracts(path)
        assert str(caught.value).startswith(f"{path}: ")
        messages.add(str(caught.value).removeprefix(f"{path}: ").split(" (")[0].split(":")[0])

    check()
    # Both guards were reached: the NUL check and the UTF-8 check.
    assert "holds binary data" in messages
    assert "is not UTF-8 text" in messages


def test_random_text_is_refused(tmp_path: Path) -> None:
    """Random Unicode (control characters included) written as UTF-8: refused, never a YAML reader error."""
    path = tmp_path / "garbage.yaml"

    @GARBAGE_SETTINGS
    @given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=500))
    def check(text: str) -> None:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(ContractValidationError) as caught:
            load_contracts(path)
        assert str(caught.value).startswith(f"{path}: ")

    check()


@pytest.mark.parametrize("seed", range(5))
def test_urandom_like_bytes_are_refused(tmp_path: Path, seed: int) -> None:
    """Fixed-seed random files of 64 KiB, as a stray binary file would be."""
    path = tmp_path / "random.bin"
    path.write_bytes(random.Random(seed).randbytes(64 * 1024))
    refused(lambda: load_contracts(path), rf"^{re.escape(str(path))}: (holds binary data|is not UTF-8 text)")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00garbage", "holds binary data (NUL bytes), not YAML text"),
        (b"\xff\xfea\x00:\x00 \x001\x00", "holds binary data (NUL bytes), not YAML text"),  # UTF-16
        (b"name: caf\xe9\n", "is not UTF-8 text (invalid byte at offset 9)"),  # Latin-1
        (b"name: b\x07ll\n", "invalid YAML: character #x0007 is not allowed (line 1, column 8)"),
        (b"a: 1\n\x1b[31mname: red\n", "invalid YAML: character #x001b is not allowed (line 2, column 1)"),
    ],
    ids=["png", "utf-16", "latin-1", "bell", "escape"],
)
def test_binary_and_control_characters_are_refused(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(data)
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(path)
    assert str(caught.value).startswith(f"{path}: {message}")


def test_a_control_character_in_an_implementation_names_the_rule() -> None:
    """PyYAML's reader refuses control characters before parsing; that refusal is a contract error too."""
    contract = yaml.safe_load(odcs_with_implementation("check: min"))
    contract["schema"][0]["quality"][0]["implementation"] = "check: min\ncolumn: a\x07\n"
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(contract)
    assert str(caught.value) == (
        "<mapping>: schema[0].quality[0]: Quality rule 'hostile': implementation: invalid YAML: character #x0007 is "
        "not allowed (line 2, column 10)"
    )


# --- size ----------------------------------------------------------------------------------------------


def test_a_50_mib_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as stream:
        stream.write(b"a: " + b"x" * MIB + b"\n")
        stream.truncate(50 * MIB)  # sparse: 50 MiB on paper, no time spent writing it
    message = refused(lambda: load_contracts(path), None, peak_mib=1)
    assert message == f"{path}: file is 50.0 MiB; contracts larger than 10.0 MiB are refused"


def test_a_file_one_byte_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "just-over.yaml"
    with path.open("wb") as stream:
        stream.truncate(MAX_BYTES + 1)
    refused(lambda: load_contracts(path), r"contracts larger than 10.0 MiB are refused", peak_mib=1)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_an_endless_device_is_read_only_up_to_the_limit(device: str) -> None:
    """A device reports size 0 and never ends: reading stops one byte past the limit."""
    message = refused(lambda: load_contracts(device), None, peak_mib=3 * MAX_BYTES / MIB)
    assert message == f"{device}: more than 10.0 MiB to read; contracts larger than 10.0 MiB are refused"


def test_text_over_the_limit_is_refused() -> None:
    text = "a: " + "x" * (50 * MIB) + "\n"
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(text)
    assert str(caught.value) == "<text>: contract text is larger than 10.0 MiB"


# --- Python object tags --------------------------------------------------------------------------------

TAGGED = [
    "a: !!python/object/apply:os.system ['touch {marker}']\n",
    "a: !!python/object/new:os.system ['touch {marker}']\n",
    "a: !!python/object/apply:subprocess.call [['touch', '{marker}']]\n",
    "a: !!python/object/apply:builtins.exec [\"open('{marker}', 'w').close()\"]\n",
    "a: !!python/object:pathlib.Path {{}}\n",
    "a: !!python/name:os.system\n",
    "a: !!python/module:os\n",
    "? !!python/object/apply:os.system ['touch {marker}']\n: key\n",
    "a: [1, !!python/object/apply:os.system ['touch {marker}']]\n",
    "a: !<tag:yaml.org,2002:python/object/apply:os.system> ['touch {marker}']\n",
    "%TAG !py! tag:yaml.org,2002:python/object/apply:\n---\na: !py!os.system ['touch {marker}']\n",
    "a: !touch '{marker}'\n",
    "a: !include /etc/passwd\n",
]


@pytest.mark.parametrize("template", TAGGED)
def test_python_object_tags_are_never_constructed(tmp_path: Path, template: str) -> None:
    marker = tmp_path / "pwned"
    text = template.format(marker=marker)
    with pytest.raises(ContractValidationError, match=r"^<text>: invalid YAML: the YAML tag '.+' is not allowed"):
        load_contracts(text)
    assert not marker.exists()


def test_a_python_tag_in_an_implementation_is_never_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(odcs_with_implementation(f"check: !!python/object/apply:os.system ['touch {marker}']\n"))
    assert str(caught.value).startswith(
        "<text>: schema[0].quality[0] (line 12): Quality rule 'hostile': implementation: invalid YAML: "
        "the YAML tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed in a contract"
    )
    assert not marker.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="uses touch")
def test_the_payload_is_live(tmp_path: Path) -> None:
    """Control: PyYAML's unsafe loader does run the payload, so the tests above could fail."""
    marker = tmp_path / "pwned"
    yaml.unsafe_load(TAGGED[0].format(marker=marker))
    assert marker.exists()


# --- nesting -------------------------------------------------------------------------------------------

DEEP = {
    "flow lists": "a: " + "[" * 10_000 + "]" * 10_000 + "\n",
    "flow maps": "a: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n",
    "block lists": "- " * 10_000 + "x\n",
    "block maps": "".join(" " * i + "a:\n" for i in range(2_000)) + " " * 2_000 + "b\n",
}


@pytest.mark.parametrize("text", DEEP.values(), ids=DEEP.keys())
def test_deep_nesting_is_refused_not_a_recursion_error(text: str) -> None:
    refused(lambda: load_contracts(text), rf"^<text>: YAML is nested deeper than {MAX_DEPTH} levels$")


def test_deep_nesting_in_an_implementation_names_the_rule() -> None:
    with pytest.raises(ContractValidationError) as caught:
        load_contracts(odcs_with_implementation("check: " + "[" * 5_000 + "]" * 5_000 + "\n"))
    assert str(caught.value) == (
        f"<text>: schema[0].quality[0] (line 12): Quality rule 'hostile': implementation: YAML is nested deeper than "
        f"{MAX_DEPTH} levels"
    )


def _nested_mapping(levels: int) -> dict[str, Any]:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"a": value}
    return value  # type: ignore[no-any-return]


def test_yaml_and_mappings_share_the_depth_limit() -> None:
    """64 levels (the leaf included) are read; 65 are refused, from YAML text and from a mapping alike."""
    text = "a: " + "{a: " * (MAX_DEPTH - 2) + "1" + "}" * (MAX_DEPTH - 2) + "\n"
    assert read_document(text).data
    assert read_document(_nested_mapping(MAX_DEPTH - 1)).data
    with pytest.raises(ContractValidationError, match=r"^<text>: YAML is nested deeper than 64 levels$"):
        read_document("a: [" + text.removeprefix("a: ").rstrip("\n") + "]\n")
    with pytest.raises(ContractValidationError, match=r"^<mapping>: nested deeper than 64 levels$"):
        read_document(_nested_mapping(MAX_DEPTH))


@pytest.mark.parametrize("levels", [MAX_DEPTH, 100, 10_000])
def test_deep_mappings_are_refused(levels: int) -> None:
    refused(lambda: load_contracts(_nested_mapping(levels)), r"^<mapping>: nested deeper than 64 levels$")


def test_deep_lists_in_a_mapping_are_refused() -> None:
    value: Any = ["leaf"]
    for _ in range(10_000):
        value = [value]
    refused(lambda: load_contracts({"apiVersion": "v3.1.0", "schema": value}), r"nested deeper than 64 levels")


def test_a_mapping_that_contains_itself_is_refused() -> None:
    cyclic: dict[str, Any] = {"apiVersion": "v3.1.0", "kind": "DataContract"}
    cyclic["schema"] = [cyclic]
    refused(lambda: load_contracts(cyclic), r"^<mapping>: nested deeper than 64 levels$")


def test_a_mapping_with_shared_references_is_refused_by_size() -> None:
    """Python's own billion laughs: 10**10 leaves through shared lists."""
    value: Any = ["lol"] * 10
    for _ in range(9):
        value = [value] * 10
    refused(lambda: load_contracts({"schema": value}), r"^<mapping>: has more than 200,000 values$")
