"""Safety numbers (PROTOCOL.md §7).

B = the user's identity blobs sorted bytewise and concatenated; uid = the lower-case user id
as UTF-8; h = SHA-512(0x00 0x00 || B || uid); 5199 times h = SHA-512(h || B); the 30 digits
are the six 5-byte chunks of h[0:30] as u40 mod 100000, each "%05d".
"""

from typing import Iterable

from . import limits, primitives
from .keys import parse_identity_blob


def fingerprint(user_id: str, blobs: Iterable[bytes]) -> str:
    """The 30-digit fingerprint of one user."""
    blobs = [bytes(b) for b in blobs]
    for blob in blobs:
        parse_identity_blob(blob)
    concatenated = b"".join(sorted(blobs))
    h = primitives.sha512(b"\x00\x00" + concatenated + user_id.lower().encode("utf-8"))
    for _ in range(limits.SAFETY_NUMBER_REPEATS):
        h = primitives.sha512(h + concatenated)
    return "".join("%05d" % (int.from_bytes(h[i:i + 5], "big") % 100000) for i in range(0, 30, 5))


def safety_number(fingerprint_a: str, fingerprint_b: str) -> str:
    """Both fingerprints, the smaller first, as 12 groups of 5 digits separated by spaces."""
    digits = "".join(sorted((fingerprint_a, fingerprint_b)))
    return " ".join(digits[i:i + 5] for i in range(0, 60, 5))
