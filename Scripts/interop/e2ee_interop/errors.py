"""Typed protocol errors (PROTOCOL.md §9).

``ProtocolError.case`` uses the Swift ``ProtocolError`` case names, so a refusal can be compared
with a vector's ``failure`` field; ``detail`` says what and where and never contains key material.
"""


class ProtocolError(Exception):
    """A refusal: the input is rejected and no state changes."""

    def __init__(self, case: str, detail: str = ""):
        super().__init__(f"{case}: {detail}" if detail else case)
        self.case = case
        self.detail = detail


def malformed(where: str, reason: str) -> ProtocolError:
    """Bytes that do not parse."""
    return ProtocolError("malformed", f"{where}: {reason}")


def truncated(where: str, expected: int, actual: int) -> ProtocolError:
    """Input shorter than its structure requires."""
    return ProtocolError("truncated", f"{where}: expected {expected} bytes, got {actual}")


def trailing(where: str, count: int) -> ProtocolError:
    """Bytes left over after a structure that must end there."""
    return ProtocolError("trailingBytes", f"{where}: {count} extra bytes")


def unsupported(where: str, value: int) -> ProtocolError:
    """An unknown version or type byte."""
    return ProtocolError("unsupportedVersion", f"{where}: 0x{value:02x}")


def limit(where: str, bound: int, actual: int) -> ProtocolError:
    """A count or length outside the §8 limits."""
    return ProtocolError("limitExceeded", f"{where}: limit {bound}, got {actual}")


def invalid_key(where: str) -> ProtocolError:
    """A non-canonical, low-order or otherwise unusable public key."""
    return ProtocolError("invalidKey", where)
