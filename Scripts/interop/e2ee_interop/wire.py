"""Wire helpers (PROTOCOL.md §0): big-endian integers, a bounds-checked reader, UUIDs, base64."""

import base64
import re
import uuid

from . import limits
from .errors import limit, malformed, trailing, truncated

_UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def u16(value: int) -> bytes:
    """Unsigned 16-bit big-endian."""
    return value.to_bytes(2, "big")


def u32(value: int) -> bytes:
    """Unsigned 32-bit big-endian."""
    return value.to_bytes(4, "big")


def is_uuid_text(text: object) -> bool:
    """True for the 36-character lower-case 8-4-4-4-12 form."""
    return isinstance(text, str) and _UUID_TEXT.fullmatch(text) is not None


def uuid_bytes(text: str) -> bytes:
    """The 16 raw bytes of a lower-case UUID text."""
    if not is_uuid_text(text):
        raise malformed("uuid", "not a lower-case UUID")
    return uuid.UUID(text).bytes


def uuid_text(raw: bytes) -> str:
    """The lower-case text of 16 raw UUID bytes."""
    return str(uuid.UUID(bytes=bytes(raw)))


def b64encode(data: bytes) -> str:
    """Standard RFC 4648 §4 base64 with padding."""
    return base64.b64encode(data).decode("ascii")


def b64decode_canonical(text: str, max_length: int = limits.MAX_CONTENT_BASE64_LENGTH,
                        where: str = "content") -> bytes:
    """Strict base64: length checked first; no whitespace, url-safe alphabet, missing padding
    or non-zero padding bits."""
    if not isinstance(text, str):
        raise malformed(where, "not a string")
    if len(text) > max_length:
        raise limit(where, max_length, len(text))
    if len(text) % 4 != 0 or _BASE64.fullmatch(text) is None:
        raise malformed(where, "not canonical base64")
    data = base64.b64decode(text, validate=True)
    if b64encode(data) != text:
        raise malformed(where, "non-zero base64 padding bits")
    return data


class Reader:
    """Reads a byte string front to back; every read is bounds-checked first."""

    def __init__(self, data: bytes, where: str):
        self.data = bytes(data)
        self.pos = 0
        self.where = where

    @property
    def remaining(self) -> int:
        """Bytes not read yet."""
        return len(self.data) - self.pos

    def take(self, count: int) -> bytes:
        """The next ``count`` bytes, or ``truncated``."""
        if count > self.remaining:
            raise truncated(self.where, self.pos + count, len(self.data))
        out = self.data[self.pos:self.pos + count]
        self.pos += count
        return out

    def byte(self) -> int:
        """One unsigned byte."""
        return self.take(1)[0]

    def u16(self) -> int:
        """A big-endian u16."""
        return int.from_bytes(self.take(2), "big")

    def u32(self) -> int:
        """A big-endian u32."""
        return int.from_bytes(self.take(4), "big")

    def rest(self) -> bytes:
        """All remaining bytes."""
        return self.take(self.remaining)

    def finish(self) -> None:
        """Refuse trailing bytes."""
        if self.remaining:
            raise trailing(self.where, self.remaining)


__all__ = ["u16", "u32", "is_uuid_text", "uuid_bytes", "uuid_text", "b64encode",
           "b64decode_canonical", "Reader"]
