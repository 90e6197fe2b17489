"""The vocabulary of rules: every metric kind and value constraint, declared once.

``kind`` holds what a declaration is, ``params`` the parameters a kind's metric takes, ``words`` how
contracts name a kind, and ``catalog`` the declarations themselves (:class:`MetricKind` names each).
The engine-neutral nouns (:class:`Metric`, :class:`Constraint`) are the rules' (``dqx_gx.rules.metric``)
and re-exported here. Importing this package imports neither Spark nor GX: a kind's Spark half is
``dqx_gx.spark.kinds``.
"""

from dqx_gx.kinds.catalog import CHECKS, CONSTRAINTS, KINDS, LIBRARY, MetricKind, kind_of
from dqx_gx.kinds.kind import Kind, TypeFamily, Value
from dqx_gx.rules.metric import Constraint, ConstraintKind, Metric, Scalar, Scale

__all__ = [
    "CHECKS",
    "CONSTRAINTS",
    "KINDS",
    "LIBRARY",
    "Constraint",
    "ConstraintKind",
    "Kind",
    "Metric",
    "MetricKind",
    "Scalar",
    "Scale",
    "TypeFamily",
    "Value",
    "kind_of",
]
