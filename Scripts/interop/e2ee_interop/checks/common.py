"""Helpers shared by the per-algorithm vector checks.

A check raises ``VectorFailure`` when a vector disagrees with this implementation. Messages
name the test field and the first differing byte offset, never the values (no key material is
printed).
"""

import re
from typing import Callable

from ..errors import ProtocolError

_HEX = re.compile(r"(?:[0-9a-f]{2})*")

# When True (``--strict-failures``), a refusal must also carry the vector's ``failure`` name.
STRICT_FAILURES = False


class VectorFailure(Exception):
    """The vector and the independent implementation disagree (or the vector is unreadable)."""


def field(obj: dict, name: str):
    """A required field."""
    if name not in obj:
        raise VectorFailure(f"missing field {name!r}")
    return obj[name]


def hexfield(obj: dict, name: str) -> bytes:
    """A required lower-case hex field as bytes."""
    value = field(obj, name)
    if not isinstance(value, str) or _HEX.fullmatch(value) is None:
        raise VectorFailure(f"field {name!r} is not lower-case hex")
    return bytes.fromhex(value)


def intfield(obj: dict, name: str) -> int:
    """A required JSON integer field."""
    value = field(obj, name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise VectorFailure(f"field {name!r} is not an integer")
    return value


def expect_bytes(name: str, expected: bytes, computed: bytes) -> None:
    """The vector's bytes must equal the recomputed ones."""
    if bytes(expected) != bytes(computed):
        first = next((i for i, (a, b) in enumerate(zip(expected, computed)) if a != b),
                     min(len(expected), len(computed)))
        raise VectorFailure(f"{name} differs from the recomputed value (first difference at byte "
                            f"{first}; vector {len(expected)} bytes, recomputed {len(computed)})")


def expect_hex(obj: dict, name: str, computed: bytes, label: str = "") -> None:
    """Compare a hex output field with recomputed bytes."""
    expect_bytes(label or name, hexfield(obj, name), computed)


def expect_equal(name: str, expected, computed) -> None:
    """Compare non-binary outputs (strings, integers, objects)."""
    if expected != computed:
        raise VectorFailure(f"{name} differs from the recomputed value")


def expect_refused(action: Callable[[], object], what: str = "the input",
                   failure=None) -> ProtocolError:
    """``action`` must raise ``ProtocolError`` (a refusal); returns it. With
    ``STRICT_FAILURES`` the error's case must also equal ``failure`` (the vector's name)."""
    try:
        action()
    except ProtocolError as error:
        if STRICT_FAILURES and failure is not None and error.case != failure:
            raise VectorFailure(f"{what} was refused as {error.case}, the vector says {failure}")
        return error
    raise VectorFailure(f"{what} was accepted, but the vector says it must be refused")


def expect_group_type(group: dict, *types: str) -> str:
    """The test group's ``type`` must be one this check knows."""
    kind = group.get("type")
    if kind not in types:
        raise VectorFailure(f"unknown group type {kind!r}")
    return kind
