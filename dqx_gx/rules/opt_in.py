"""Rules that run only when the run opts in: ``type: sql`` rules (and hand-written assertions over dqlib's
``custom_sql``) and foreign keys.

One answer to "will this rule run?", shared by the suite builder (which skips the rule) and
``dqx-gx coverage`` (which lists it as skipped), so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Collection

from dqx_gx.rules.rule import CheckRule, MetricRule, Rule, SqlRule

SQL_OFF = (
    "type 'sql' rules run only when allowed (allow_sql=True, dqx-gx --allow-sql), "
    "and then only as a single read-only SELECT over the batch"
)


CUSTOM_SQL_OFF = (
    "its custom_sql metric runs only when SQL is allowed (allow_sql=True, dqx-gx --allow-sql), "
    "and then only as a read-only expression over the batch"
)


def not_given(name: str) -> str:
    """Why a foreign key cannot be checked without its referenced dataset, and how to give it."""
    return (
        f"it needs the referenced dataset {name!r}, which this run was not given "
        f"(run_contract(..., references={{{name!r}: dataframe}}) or dqx-gx validate --reference {name}=PATH)"
    )


def opted_out(rule: Rule, *, allow_sql: bool, references: Collection[str]) -> str | None:
    """Why ``rule`` does not run without an opt-in the run lacks, or None when nothing is missing."""
    if isinstance(rule, SqlRule) and not allow_sql:
        return SQL_OFF
    if isinstance(rule, CheckRule) and rule.sql and not allow_sql:
        return CUSTOM_SQL_OFF
    reference = rule.metric.reference if isinstance(rule, MetricRule) else None
    if reference is not None and reference not in references:
        return f"the foreign key is not checked: {not_given(reference)}"
    return None
