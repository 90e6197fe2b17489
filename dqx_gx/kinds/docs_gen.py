"""The checks reference (``docs/checks.md``), written from the kinds' words: every check with its names,
options and one example per format. ``python -m dqx_gx.kinds.generate`` rewrites it."""

from __future__ import annotations

from collections.abc import Iterator

from dqx_gx.kinds.catalog import KINDS, LIBRARY
from dqx_gx.kinds.kind import Kind, Marks, Reach, Value
from dqx_gx.kinds.words import Format, Place

_VALUE = {
    Value.ROWS: "a count of rows; `return: pct` (DQX) or `unit: percent` (ODCS library) makes it a share of all rows",
    Value.COUNT: "a count",
    Value.NUMBER: "a number of the column's values (NaN in the column fails the rule with the reason)",
    Value.AGE: "hours, from the run's moment",
    Value.GAPS: "a count of missing partitions, from the run's moment",
}
_REACH = {
    Reach.ROW: "the row alone",
    Reach.KEY: "every row sharing the row's key (not on a stream)",
    Reach.BOUNDS: "the row's value against the rule's bound (only when the rule has an operator)",
    Reach.REFERENCE: "the row's key against the keys of the referenced dataset",
}
_FORMATS = {
    Format.DQX: "ODCS `engine: dqx` check",
    Format.NATIVE_COLUMN: "native column check",
    Format.NATIVE_TABLE: "native table check",
}
_PLACES = {
    Place.QUALITY: "In the `quality` list of an ODCS property",
    Place.PROPERTY: "In an ODCS property",
    Place.NATIVE_COLUMN: "In the `checks` of a native column",
    Place.NATIVE_TABLE: "In the native format's top-level `checks`",
}


def _names(kind: Kind, format: Format) -> str:
    check = kind.words.check(format)
    return f"`{check.name}`" if check else ""


def _summary() -> Iterator[str]:
    yield "| kind | ODCS library metric | ODCS `engine: dqx` | native column | native table | marks rows |"
    yield "| --- | --- | --- | --- | --- | --- |"
    for kind in KINDS.values():
        library = ", ".join(dict.fromkeys(f"`{w.metric}`" for w in kind.words.library))
        formats = " | ".join(_names(kind, format) for format in Format)
        yield f"| [`{kind.metric.value}`](#{kind.metric.value}) | {library} | {formats} | {_marks(kind)} |"


def _marks(kind: Kind) -> str:
    return "yes" if isinstance(kind.marks, Marks) else "no"


def _section(kind: Kind) -> Iterator[str]:
    words = kind.words
    yield f"## {kind.metric.value}"
    yield ""
    yield words.description
    yield ""
    yield f"- Value: {_VALUE[kind.value]}."
    if isinstance(kind.marks, Marks):
        yield f"- Row-level: the row gate marks the rows it counts, looking at {_REACH[kind.marks.reach]}."
    else:
        yield f"- Batch-only: {kind.marks.why}; it marks no rows."
    for word in words.library:
        alone = len(LIBRARY[word.metric]) > 1
        argument = f" with `arguments.{word.argument}`" if word.argument else (" without arguments" if alone else "")
        yield f"- ODCS library metric: `metric: {word.metric}`{argument}."
    for check in words.checks:
        yield f"- {_FORMATS[check.format]}: `{check.format.key}: {check.name}`."
    if words.elsewhere:
        yield f"- Also: {words.elsewhere}"
    options = [(check, option) for check in words.checks for option in check.takes]
    if options:
        yield ""
        yield "| option | of | holds | required | default | what it does |"
        yield "| --- | --- | --- | --- | --- | --- |"
        for check, option in options:
            required = "yes" if option.name in check.required else ("one of" if option.name in check.one_of else "")
            default = "" if option.default is None else f"`{option.default}`".replace("`True`", "`true`")
            yield (
                f"| `{option.name}` | {_FORMATS[check.format]} | {option.type} | {required} | {default} "
                f"| {option.description} |"
            )
    for example in words.examples:
        where = f" (`{example.column}`)" if example.place is not Place.NATIVE_TABLE else ""
        yield ""
        yield f"{_PLACES[example.place]}{where}:"
        yield ""
        yield "```yaml"
        yield example.text
        yield "```"
    yield ""


def reference() -> str:
    """The text of ``docs/checks.md``."""
    lines = [
        "# Checks",
        "",
        "<!-- Generated from the kind declarations (dqx_gx/kinds/catalog.py) by "
        "`python -m dqx_gx.kinds.generate`; edit those, not this page. -->",
        "",
        "Every rule dqx-gx measures is one of these kinds, named by the metric DQX computes. A contract names",
        "a kind by an ODCS library metric (`quality: - metric: nullValues`), by a DQX check in an ODCS rule",
        "with `type: custom, engine: dqx` (`implementation: {check: missing, column: …}`), or by a check of",
        "the native format (`type: missing` in a column's or the top-level `checks`). Every check also takes",
        "the format's common fields: `name`, `severity`, `description`, and a threshold (the ODCS operators",
        "`mustBe`, `mustBeLessThan`, …; the native validators `min`, `max`, `equals`, `between`,",
        "`not_between` with `tolerance`). The examples use a table `orders` with `order_id`, `status`,",
        "`customer_id` (strings), `amount` (a number) and `ordered_at` (a timestamp).",
        "",
        *_summary(),
        "",
    ]
    for kind in KINDS.values():
        lines.extend(_section(kind))
    return "\n".join(lines)
