"""E2EE-SAFETY-NUMBER: fingerprints and the safety number (PROTOCOL.md §7, §10.18).

Group type SafetyNumberTest (both users' halves from their devices, §7.4):
valid: both 30-digit fingerprints and the 60-digit grouped safety number must be reproduced.
invalid: the inputs must be refused or some output must differ.

Group type SafetyNumberUserKeyTest (at least one half under a user key, B.5):
valid: both fingerprints, the grouped safety number and the first user's scannable form
(§7.6) must be reproduced.
invalid: the inputs must be refused (a user key that is not 32 bytes).
"""

from .. import safety_number
from ..errors import ProtocolError
from .common import (VectorFailure, expect_equal, expect_group_type, expect_hex, expect_refused,
                     field, hexfield)

ALGORITHM = "E2EE-SAFETY-NUMBER"


def _blobs(test: dict, name: str):
    values = field(test, name)
    if not isinstance(values, list):
        raise VectorFailure(f"{name} must be a list")
    return [hexfield({name: value}, name) for value in values]


def _users(test: dict):
    user_a, user_b = field(test, "userA"), field(test, "userB")
    if not isinstance(user_a, str) or not isinstance(user_b, str):
        raise VectorFailure("userA and userB must be strings")
    return user_a, user_b


def _verify(test: dict) -> None:
    user_a, user_b = _users(test)
    fingerprint_a = safety_number.fingerprint(user_a, _blobs(test, "blobsA"))
    fingerprint_b = safety_number.fingerprint(user_b, _blobs(test, "blobsB"))
    expect_equal("fingerprintA", field(test, "fingerprintA"), fingerprint_a)
    expect_equal("fingerprintB", field(test, "fingerprintB"), fingerprint_b)
    expect_equal("safetyNumber", field(test, "safetyNumber"),
                 safety_number.safety_number(fingerprint_a, fingerprint_b))


def _half(test: dict, side: str):
    """A function computing h for one user: under ``userKey<side>`` when it is not empty, else
    from ``blobs<side>``. Both given is a malformed vector."""
    user_key, blobs = hexfield(test, f"userKey{side}"), _blobs(test, f"blobs{side}")
    if user_key and blobs:
        raise VectorFailure(f"userKey{side} and blobs{side} are both given")
    if user_key:
        return lambda user: safety_number.user_key_hash(user, user_key)
    return lambda user: safety_number.device_hash(user, blobs)


def _hashes(test: dict):
    user_a, user_b = _users(test)
    half_a, half_b = _half(test, "A"), _half(test, "B")
    return half_a(user_a), half_b(user_b)


def _verify_user_key(test: dict) -> None:
    h_a, h_b = _hashes(test)
    fingerprint_a, fingerprint_b = safety_number.digits(h_a), safety_number.digits(h_b)
    expect_equal("fingerprintA", field(test, "fingerprintA"), fingerprint_a)
    expect_equal("fingerprintB", field(test, "fingerprintB"), fingerprint_b)
    expect_equal("safetyNumber", field(test, "safetyNumber"),
                 safety_number.safety_number(fingerprint_a, fingerprint_b))
    expect_hex(test, "scannableForm", safety_number.scannable_form(h_a, h_b))


def check(group: dict, test: dict) -> None:
    """Check one SafetyNumberTest or SafetyNumberUserKeyTest."""
    kind = expect_group_type(group, "SafetyNumberTest", "SafetyNumberUserKeyTest")
    if kind == "SafetyNumberUserKeyTest":
        if field(test, "result") == "valid":
            _verify_user_key(test)
        else:
            expect_refused(lambda: _hashes(test), "the safety number's inputs", test.get("failure"))
        return
    if field(test, "result") == "valid":
        _verify(test)
        return
    try:
        _verify(test)
    except (VectorFailure, ProtocolError):
        return
    raise VectorFailure("the safety number reproduces, but the vector says it is invalid")
