"""A check a contract names (an ``engine: dqx`` rule's implementation, a native column or table check) read
into its kind's metric and bound, from the kind's declaration alone: no parser names a particular kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dqx_gx.errors import ContractValidationError
from dqx_gx.kinds import Kind, Metric, Scale
from dqx_gx.kinds.words import Check
from dqx_gx.rules.threshold import Operator, Threshold, parse_threshold


def check_params(
    kind: Kind,
    check: Check,
    given: Mapping[str, Any],
    label: str,
    *,
    declared: tuple[str | None, str] | None = None,
) -> dict[str, Any]:
    """The parameters of ``kind``'s metric that ``check`` gives: each from its option (or that option's
    default), through other options, or from ``declared``, the logical type and name of a native
    column the check sits in. The schema has checked their shape; each parameter refuses the rest."""
    fields: dict[str, Any] = {}
    for param in kind.params:
        option = check.option(param.name)
        if option is not None:
            value = given.get(param.name, option.default)
            if value is not None:
                fields[param.name] = param.given(value, f"{label}: {param.name}")
        elif param.from_check is not None:
            fields[param.name] = param.from_check(given, label)
        elif param.from_type is not None and declared is not None:
            fields[param.name] = param.from_type(*declared, label)
    return fields


def check_metric(kind: Kind, columns: tuple[str, ...], scale: Scale, params: Mapping[str, Any], label: str) -> Metric:
    """The metric a check gives, refused when its kind cannot measure it whatever the data (:attr:`Kind.refuses`)."""
    metric = Metric(kind.metric, columns, scale=scale, params=params)
    problem = kind.refuses(metric) if kind.refuses is not None else None
    if problem:
        raise ContractValidationError(f"{label}: {problem}")
    return metric


def own_bound(check: Check, given: Mapping[str, Any], label: str) -> Threshold:
    """The bound of a check that holds it in an option of its own (:attr:`Check.at_most`): the metric
    may not exceed it."""
    assert check.at_most is not None
    option = check.option(check.at_most)
    assert option is not None
    at_most = {Operator.LESS_OR_EQUAL.value: given.get(option.name, option.default)}
    threshold = parse_threshold(label, at_most, spelling={Operator.LESS_OR_EQUAL: option.name})
    assert threshold is not None  # the schema requires the option, or it has a default
    return threshold


def refused_operators(check: Check, given: Mapping[str, Any], label: str) -> ContractValidationError:
    """Why ODCS operators are refused on a check whose bound is an option of its own."""
    assert check.at_most is not None
    option = check.option(check.at_most)
    default = f" (default {option.default})" if option is not None and option.default is not None else ""
    return ContractValidationError(
        f"{label}: check '{check.name}' {check.why}; remove {', '.join(given)} and give {check.at_most}{default}"
    )
