"""String formats a contract may name, as Java-compatible regular expressions.

ODCS ``logicalTypeOptions.format`` and DQX's native ``pattern`` check use the
same names; a value violates the format when the regex does not match it.
"""

from __future__ import annotations

_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_H16 = r"[0-9A-Fa-f]{1,4}"
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"

FORMAT_PATTERNS: dict[str, str] = {
    "email": r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
    "uuid": r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
    "ipv4": rf"^{_OCTET}(\.{_OCTET}){{3}}$",
    "ipv6": (
        rf"^(({_H16}:){{7}}{_H16}"
        rf"|({_H16}:){{1,7}}:"
        rf"|({_H16}:){{1,6}}:{_H16}"
        rf"|({_H16}:){{1,5}}(:{_H16}){{1,2}}"
        rf"|({_H16}:){{1,4}}(:{_H16}){{1,3}}"
        rf"|({_H16}:){{1,3}}(:{_H16}){{1,4}}"
        rf"|({_H16}:){{1,2}}(:{_H16}){{1,5}}"
        rf"|{_H16}:(:{_H16}){{1,6}}"
        rf"|:((:{_H16}){{1,7}}|:))$"
    ),
    "hostname": rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$",
    "uri": r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$",
    "url": r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*$",
    "phone": r"^\+?[0-9][0-9 ()./-]{5,19}$",
    "date": r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
    "datetime": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?$",
}
