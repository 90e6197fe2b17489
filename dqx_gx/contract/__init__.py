"""Loading contracts: from a path, YAML text or mapping to validated :class:`Contract` objects."""

from __future__ import annotations

from dqx_gx.contract.model import Contract, Property, SlaLatency, Source, TextRule
from dqx_gx.contract.native import load_native
from dqx_gx.contract.odcs import load_odcs
from dqx_gx.contract.source import Document, read_document
from dqx_gx.contract.thesis import is_thesis, load_thesis
from dqx_gx.errors import ContractValidationError

__all__ = ["Contract", "Property", "SlaLatency", "TextRule", "chosen_contracts", "load_contracts", "read_document"]

# The loaders build the Contract, so the model cannot import them: its two constructors are bound here.
Contract.from_odcs = staticmethod(load_odcs)
Contract.from_yaml = staticmethod(load_native)


def load_contracts(source: Source | Document) -> list[Contract]:
    """Load a contract in any of the three formats, telling them apart by their keys.

    The thesis's format has ``specVersion``; an ODCS document has ``apiVersion``/``kind``; a DQX native
    one has ``dataset`` and ``columns``. Returns one Contract per ODCS ``schema[]`` object, or a
    one-element list for the other formats.
    """
    document = read_document(source)
    data = document.data
    if is_thesis(data):
        return [load_thesis(document)]
    if "apiVersion" in data or "kind" in data:
        return load_odcs(document)
    if "dataset" in data or "columns" in data:
        return [load_native(document)]
    raise ContractValidationError(
        f"{document.origin}: cannot tell the contract format: an ODCS contract has 'apiVersion' and "
        "'kind: DataContract'; a DQX native contract has 'dataset' and 'columns'; the thesis's format has "
        "'specVersion'"
    )


def chosen_contracts(contracts: list[Contract], schema: str | None) -> list[tuple[int, Contract]]:
    """The contracts of a document with their ``schema[]`` index: all, or the one ``schema`` names (its
    dataset or its schema object's name); every command's ``--schema`` is read here."""
    indexed = list(enumerate(contracts))
    if schema is None:
        return indexed
    matches = [(i, c) for i, c in indexed if schema in (c.dataset, c.schema_name)]
    if not matches:
        known = ", ".join(c.dataset for c in contracts) or "none"
        raise ContractValidationError(f"--schema {schema!r} matches no schema object of the contract (it has: {known})")
    return matches[:1]
