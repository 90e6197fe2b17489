"""Every key-based number of a batch from one grouping: distinct counts, duplicates and the rows they mark.

A duplicates rule counts the extra copies of its key but marks every row of a repeated key (docs/semantics.md, 'Rows:
annotate, split, quarantine'); both come from grouping the key. So the batch's keys (one per distinct-based rule, each
set of columns once) are grouped together, by ``GROUPING SETS``, and each key's numbers are summed from its groups in
the same query: one query for all of them, as ``count(DISTINCT)`` would expand the rows anyway, instead
of a distinct-count pass and a grouping per duplicates rule that found a copy. Keys are grouped
NULL-safely, as the gate compares them (:mod:`dqx_gx.spark.marks`). A small batch
(:mod:`dqx_gx.spark.small_batch`) is grouped in one partition, its rows repeated once per set by ``inline``
instead: Spark's Expand, which ``GROUPING SETS`` plans, gives up the one partition and exchanges the rows
twice, two Spark jobs more.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

from pyspark.sql import Column, DataFrame
from pyspark.sql.types import StructField

from dqx_gx.spark import text as S
from dqx_gx.spark.columns import NESTED_PATH
from dqx_gx.spark.expressions import num_rows
from dqx_gx.spark.small_batch import is_small
from dqx_gx.spark.text import Sql
from dqx_gx.spark_versions import GROUPING_SETS

Key = tuple[StructField, ...]
"""A rule's key columns, as found in the batch."""


@dataclass(frozen=True)
class KeyCounts:
    """A key's numbers over the batch."""

    rows: int
    distinct: int
    """``COUNT(DISTINCT key)``: for one column its non-NULL values, for several the value tuples (NULL
    members count)."""
    marked: int
    """The rows of a key that occurs more than once and, for one column, every NULL key (docs/semantics.md, 'Rows:
    annotate, split, quarantine')."""

    @property
    def copies(self) -> int:
        """The extra copies: rows minus distinct keys (for one column every NULL is a copy)."""
        return self.rows - self.distinct


@dataclass(frozen=True)
class KeyQuery:
    """The grouping's expressions for a list of keys: built once, kept by the caller (building a column
    goes through Spark's gateway), and run over any batch of the same schema."""

    selected: tuple[Column, ...]
    """Each key column once, under a name of its own."""
    grouped_by: tuple[Column, ...]
    """Every key column under its own name."""
    grouping_sets: tuple[tuple[Column, ...], ...]
    """The grouping sets: each set of key columns once."""
    each_set: Column
    """Each row once per grouping set (``inline``): the set's key columns, NULL for the others, and the set's id
    as ``grouping_id`` gives it; grouped by all of them, the groups of ``GROUPING SETS``."""
    per_group: tuple[Column, Column]
    """Per group its rows and the id of its set (``grouping_id``: a bit per key column, set where the set
    leaves it out; 0 for a single set)."""
    set_id: Column
    per_set: tuple[Column, ...]
    """Per set, from its groups: its rows, groups, groups without a NULL member, rows of repeated groups,
    and rows of repeated groups or groups with a NULL member. The same five for every set, the groups
    grouped by set: five per set in one aggregate made the code Spark generates, compiles and runs grow
    with the sets."""
    of_keys: tuple[tuple[int, bool], ...]
    """Per key given: the id of its set (as ``per_group`` gives it), and whether it is one column (NULLs read
    apart)."""


MAX_COLUMNS = 63
"""Key columns one grouping takes: Spark groups at most 64 columns in ``GROUPING SETS``, and the grouping id
that tells the sets apart is a signed 64-bit number, one bit per column."""


def in_groupings(keys: Sequence[Key]) -> list[tuple[Key, ...]]:
    """``keys`` in as few groupings as fit :data:`MAX_COLUMNS` columns each (one for any usual contract);
    a key wider than that is a grouping of its own, grouped plainly (:func:`key_counts`)."""
    groupings: list[tuple[list[Key], set[tuple[str, ...]]]] = []
    for key in keys:
        columns = {_address(field) for field in key}
        fitting = next((g for g in groupings if len(g[1] | columns) <= MAX_COLUMNS), None)
        if fitting is None:
            groupings.append(([key], columns))
        else:
            fitting[0].append(key)
            fitting[1].update(columns)
    return [tuple(grouped) for grouped, _ in groupings]


def key_query(keys: Sequence[Key]) -> KeyQuery:
    """The one grouping query that counts every key of ``keys``."""
    address = {_address(field): field for key in keys for field in key}
    columns = sorted(address)
    name = {column: f"_dqx_key_{index}" for index, column in enumerate(columns)}
    of_key = [tuple(sorted({_address(field) for field in key})) for key in keys]
    sets = list(dict.fromkeys(of_key))
    bit = {column: 1 << (len(columns) - 1 - index) for index, column in enumerate(columns)}
    set_ids = [sum(bit[c] for c in columns if c not in key_set) for key_set in sets]
    rows, set_id = S.named("_dqx_rows"), S.named("_dqx_set")

    def present(column: tuple[str, ...]) -> Sql:
        """In a group: the column is not NULL, or its set leaves it out (one set leaves none out, and a key
        of more than 63 columns, always one set, has no grouping id)."""
        not_null = S.named(name[column]).is_not_null()
        return not_null if len(sets) == 1 else (set_id.bitwise_and(bit[column]) != 0) | not_null

    whole = reduce(operator.and_, [present(column) for column in columns])  # a group without a NULL member
    repeated = rows > 1
    by_name = {column: S.named(name[column]).column() for column in columns}
    return KeyQuery(
        selected=tuple(S.col(address[column]).column(name[column]) for column in columns),
        grouped_by=tuple(by_name.values()),
        grouping_sets=tuple(tuple(by_name[column] for column in key_set) for key_set in sets),
        each_set=S.call(
            "inline",
            S.call(
                "array",
                *(
                    S.named_struct(
                        **{name[c]: S.named(name[c]) if c in key_set else S.null(address[c].dataType) for c in columns},
                        _dqx_set=S.lit(set_id).cast("bigint"),
                    )
                    for key_set, set_id in zip(sets, set_ids, strict=True)
                ),
            ),
        ).column(),
        # one set: a plain grouping (no row expanded, no column limit), no column left out
        per_group=(
            num_rows().column("_dqx_rows"),
            (S.lit(0) if len(sets) == 1 else S.call("grouping_id")).column("_dqx_set"),
        ),
        set_id=set_id.column(),
        per_set=tuple(
            each.column()
            for each in (
                S.call("sum", rows),
                num_rows(),
                S.call("count_if", whole),
                S.call("sum", S.when(repeated, rows)),
                S.call("sum", S.when(repeated | ~whole, rows)),
            )
        ),
        of_keys=tuple(
            (sum(bit[c] for c in columns if c not in key_set), len(key) == 1)
            for key_set, key in zip(of_key, keys, strict=True)
        ),
    )


def key_counts(df: DataFrame, query: KeyQuery) -> list[KeyCounts]:
    """Each key's numbers over ``df``, in the order the query's keys were given: one query."""
    if not query.grouping_sets:
        return []
    # every column is the query's own, built once (no name to resolve, no call site recorded here)
    small = is_small(df)
    selected = (df.coalesce(1) if small else df).select(*query.selected)
    if len(query.grouping_sets) == 1:
        per_group = selected.groupBy(*query.grouped_by).agg(*query.per_group)
    elif GROUPING_SETS.available and not small:
        per_group = selected.groupingSets(query.grouping_sets, *query.grouped_by).agg(*query.per_group)
    else:  # a small batch (GROUPING SETS' Expand would exchange its one partition twice) or PySpark 3.5
        rows, _ = query.per_group
        per_group = selected.select(query.each_set).groupBy(*query.grouped_by, query.set_id).agg(rows)
    per_set = per_group.groupBy(query.set_id).agg(*query.per_set)
    found = {row[0]: [int(value or 0) for value in row[1:]] for row in per_set.collect()}
    none = [0] * len(query.per_set)  # a set without groups: an empty batch
    return [_of_key(found.get(set_id, none), one_column) for set_id, one_column in query.of_keys]


def _of_key(counts: list[int], one_column: bool) -> KeyCounts:
    rows, groups, whole, repeated, repeated_or_null = counts
    if one_column:
        return KeyCounts(rows, whole, repeated_or_null)
    return KeyCounts(rows, groups, repeated)


def _address(field: StructField) -> tuple[str, ...]:
    """A found column's place in the batch: its name, or a struct field's path."""
    path = field.metadata.get(NESTED_PATH) if field.metadata else None
    return tuple(path or [field.name])
