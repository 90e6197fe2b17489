"""The vocabulary of rules: every metric kind and value constraint, declared once.

``metric`` holds the engine-neutral nouns (:class:`MetricKind`, :class:`Metric`, :class:`Constraint`),
``kind`` what a declaration is, and ``catalog`` the declarations themselves. Importing this package
needs neither Spark nor GX: a kind's Spark side binds only when a plan is built.
"""

from dqx_gx.kinds.catalog import CONSTRAINTS, KINDS, kind_of
from dqx_gx.kinds.kind import Kind, TypeFamily, Value
from dqx_gx.kinds.metric import Constraint, ConstraintKind, Metric, MetricKind, Scalar, Scale

__all__ = [
    "CONSTRAINTS",
    "KINDS",
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
