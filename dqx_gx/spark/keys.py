"""Every key-based number of a batch from one grouping: distinct counts, duplicates and the rows they mark.

A duplicates rule counts the extra copies of its key but marks every row of a repeated key (SPEC §5);
both come from grouping the key. So the batch's keys (one per distinct-based rule, each set of columns
once) are grouped together, by ``GROUPING SETS``, and each key's numbers are summed from its groups in
the same query: one query for all of them, as ``count(DISTINCT)`` would expand the rows anyway, instead
of a distinct-count pass and a grouping per duplicates rule that found a copy. Keys are grouped
NULL-safely, as the gate compares them (:mod:`dqx_gx.spark.marks`).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StructField

from dqx_gx.spark.columns import NESTED_PATH, spark_column

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
    """The rows of a key that occurs more than once and, for one column, every NULL key (SPEC §5)."""

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
    sets: tuple[tuple[str, ...], ...]
    """The grouping sets: each set of key columns once."""
    names: tuple[str, ...]
    sums: tuple[Column, ...]
    """Per set: its rows, groups, groups without a NULL member, rows of repeated groups, and rows of
    repeated groups or groups with a NULL member."""
    of_keys: tuple[tuple[int, bool], ...]
    """Per key given: the index of its set, and whether it is one column (NULLs read apart)."""


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
    rows, of_set = F.col("_dqx_rows"), F.col("_dqx_set")
    sums: list[Column] = []
    for key_set in sets:
        # grouping_id: one bit per grouping column, the first the most significant, set where it is left out
        left_out = sum(1 << (len(columns) - 1 - index) for index, column in enumerate(columns) if column not in key_set)
        mine = of_set == F.lit(left_out)
        whole = reduce(operator.and_, [F.col(name[column]).isNotNull() for column in key_set])
        sums += [
            F.sum(F.when(mine, rows)),
            F.count_if(mine),
            F.count_if(mine & whole),
            F.sum(F.when(mine & (rows > 1), rows)),
            F.sum(F.when(mine & ((rows > 1) | ~whole), rows)),
        ]
    return KeyQuery(
        selected=tuple(spark_column(address[column]).alias(name[column]) for column in columns),
        sets=tuple(tuple(name[column] for column in key_set) for key_set in sets),
        names=tuple(name.values()),
        sums=tuple(sums),
        of_keys=tuple((sets.index(key_set), len(key) == 1) for key_set, key in zip(of_key, keys, strict=True)),
    )


def key_counts(df: DataFrame, query: KeyQuery) -> list[KeyCounts]:
    """Each key's numbers over ``df``, in the order the query's keys were given: one query."""
    if not query.sets:
        return []
    selected = df.select(*query.selected)
    if len(query.sets) == 1:  # one set: a plain grouping (no row expanded, no column limit), its set id 0
        counted = selected.groupBy(*query.names).agg(F.count(F.lit(1)).alias("_dqx_rows"), F.lit(0).alias("_dqx_set"))
    else:
        groups = selected.groupingSets([list(s) for s in query.sets], *query.names)
        counted = groups.agg(F.count(F.lit(1)).alias("_dqx_rows"), F.grouping_id().alias("_dqx_set"))
    found = [int(value or 0) for value in counted.agg(*query.sums).first()]  # type: ignore[union-attr]
    return [_of_key(found[5 * index : 5 * index + 5], one_column) for index, one_column in query.of_keys]


def _of_key(counts: list[int], one_column: bool) -> KeyCounts:
    rows, groups, whole, repeated, repeated_or_null = counts
    if one_column:
        return KeyCounts(rows, whole, repeated_or_null)
    return KeyCounts(rows, groups, repeated)


def _address(field: StructField) -> tuple[str, ...]:
    """A found column's place in the batch: its name, or a struct field's path."""
    path = field.metadata.get(NESTED_PATH) if field.metadata else None
    return tuple(path or [field.name])
