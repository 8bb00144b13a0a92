"""Safety numbers (PROTOCOL.md §7, §10.18).

A user's half is computed from their devices (§7.4) or, for a user with a pinned user key,
from the key alone (§10.18, B.5):

- devices: B = the user's identity blobs sorted bytewise and concatenated;
  h = SHA-512(0x00 0x00 || B || uid); 5199 times h = SHA-512(h || B);
- user key: K = the key's 32 bytes; h = SHA-512(0x00 0x01 || K || uid); 5199 times
  h = SHA-512(h || K);

uid = the lower-case user id as UTF-8. The 30 digits are the six 5-byte chunks of h[0:30] as
u40 mod 100000, each "%05d"; the scannable form (§7.6) is 0x01 || h_local[0:32] || h_remote[0:32].
"""

from typing import Iterable

from . import limits, primitives
from .errors import malformed
from .keys import check_ed25519_public, parse_identity_blob

USER_KEY_LENGTH = 32
SCANNABLE_VERSION = 0x01
SCANNABLE_FINGERPRINT_LENGTH = 32


def _iterate(prefix: bytes, data: bytes, user_id: str) -> bytes:
    """h = SHA-512(prefix || data || uid), then 5199 times h = SHA-512(h || data)."""
    h = primitives.sha512(prefix + data + user_id.lower().encode("utf-8"))
    for _ in range(limits.SAFETY_NUMBER_REPEATS):
        h = primitives.sha512(h + data)
    return h


def device_hash(user_id: str, blobs: Iterable[bytes]) -> bytes:
    """h of §7.4 (64 bytes) over the user's identity blobs (each parsed as a received blob)."""
    blobs = [bytes(b) for b in blobs]
    if not blobs:
        raise malformed("identity blob", "no devices listed")
    for blob in blobs:
        parse_identity_blob(blob)
    return _iterate(b"\x00\x00", b"".join(sorted(blobs)), user_id)


def user_key_hash(user_id: str, user_key: bytes) -> bytes:
    """h of §10.18 (B.5, 64 bytes) under the user key ``user_key``: 32 bytes, and (the strict
    side: a pinned key passed §0.8 when it was pinned) a valid Ed25519 point."""
    user_key = bytes(user_key)
    if len(user_key) != USER_KEY_LENGTH:
        raise malformed("user key", f"{len(user_key)} bytes, not {USER_KEY_LENGTH}")
    check_ed25519_public(user_key, "user key")
    return _iterate(b"\x00\x01", user_key, user_id)


def digits(h: bytes) -> str:
    """The 30 digits of h[0:30]."""
    return "".join("%05d" % (int.from_bytes(h[i:i + 5], "big") % 100000) for i in range(0, 30, 5))


def fingerprint(user_id: str, blobs: Iterable[bytes]) -> str:
    """The 30-digit fingerprint of one user from their devices (§7.4)."""
    return digits(device_hash(user_id, blobs))


def fingerprint_under_user_key(user_id: str, user_key: bytes) -> str:
    """The 30-digit fingerprint of one user under their user key (§10.18, B.5)."""
    return digits(user_key_hash(user_id, user_key))


def safety_number(fingerprint_a: str, fingerprint_b: str) -> str:
    """Both fingerprints, the smaller first, as 12 groups of 5 digits separated by spaces."""
    digits_ = "".join(sorted((fingerprint_a, fingerprint_b)))
    return " ".join(digits_[i:i + 5] for i in range(0, 60, 5))


def scannable_form(h_local: bytes, h_remote: bytes) -> bytes:
    """What the local side shows as a QR code (§7.6): 65 bytes."""
    n = SCANNABLE_FINGERPRINT_LENGTH
    return bytes([SCANNABLE_VERSION]) + h_local[:n] + h_remote[:n]
