"""Minimal valid contracts for tests: one place that knows what an ODCS or native document must hold."""

from __future__ import annotations

from typing import Any

from dqx_gx import Contract


def odcs_document(schema: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    """A minimal valid ODCS v3.1.0 document around ``schema``; ``top`` adds or replaces top-level fields."""
    return {
        "apiVersion": "v3.1.0",
        "kind": "DataContract",
        "id": "c-1",
        "name": "c",
        "version": "1.0.0",
        "status": "active",
        "schema": schema,
        **top,
    }


def native_document(columns: list[dict[str, Any]] | None = None, **top: Any) -> dict[str, Any]:
    """A minimal valid DQX native document around ``columns`` (by default one int column ``a``); ``top``
    adds or replaces top-level fields."""
    return {
        "name": "c",
        "version": "1.0.0",
        "description": "d",
        "owner": "o",
        "dataset": "t",
        "columns": columns or [{"name": "a", "type": "int", "description": "a"}],
        **top,
    }


def one_table(properties: list[dict[str, Any]], quality: list[dict[str, Any]] | None = None, **top: Any) -> Contract:
    """The contract of a document with one schema object ``t``."""
    schema = [{"name": "t", "properties": properties, "quality": quality or []}]
    (contract,) = Contract.from_odcs(odcs_document(schema, **top))
    return contract
