"""Shared helpers of the sample builders: fixed secrets and UUIDs, byte flips, refusals."""

from e2ee_interop import primitives
from e2ee_interop.errors import ProtocolError

P = 2**255 - 19
ORDER8_X25519 = (325606250916557431795983626356110631294008115727848805560023387167927233504
                 ).to_bytes(32, "little")
ED25519_IDENTITY = bytes([1]) + bytes(31)  # the neutral point: small order


def secret(label: str) -> bytes:
    """A fixed 32-byte sample secret (not random: samples must be reproducible)."""
    return primitives.sha256(b"e2ee-interop-sample/" + label.encode())


def sample_uuid(label: str) -> str:
    """A fixed lower-case UUID text."""
    raw = secret("uuid/" + label)[:16].hex()
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-8{raw[17:20]}-{raw[20:32]}"


def flip(data: bytes, index: int, mask: int = 0x01) -> bytes:
    """``data`` with one byte changed."""
    out = bytearray(data)
    out[index] ^= mask
    return bytes(out)


def refused_as(expected: str, action) -> str:
    """Run ``action``; it must raise ProtocolError(expected). Returns the case name."""
    try:
        action()
    except ProtocolError as error:
        assert error.case == expected, f"refused as {error.case}, expected {expected}"
        return error.case
    raise AssertionError(f"accepted, expected {expected}")
