"""E2EE-SAFETY-NUMBER (group type SafetyNumberTest): fingerprints and the safety number.

valid: both 30-digit fingerprints and the 60-digit grouped safety number must be reproduced.
invalid: the inputs must be refused or some output must differ.
"""

from .. import safety_number
from ..errors import ProtocolError
from .common import VectorFailure, expect_equal, expect_group_type, field, hexfield

ALGORITHM = "E2EE-SAFETY-NUMBER"


def _blobs(test: dict, name: str):
    values = field(test, name)
    if not isinstance(values, list):
        raise VectorFailure(f"{name} must be a list")
    return [hexfield({name: value}, name) for value in values]


def _verify(test: dict) -> None:
    user_a, user_b = field(test, "userA"), field(test, "userB")
    if not isinstance(user_a, str) or not isinstance(user_b, str):
        raise VectorFailure("userA and userB must be strings")
    fingerprint_a = safety_number.fingerprint(user_a, _blobs(test, "blobsA"))
    fingerprint_b = safety_number.fingerprint(user_b, _blobs(test, "blobsB"))
    expect_equal("fingerprintA", field(test, "fingerprintA"), fingerprint_a)
    expect_equal("fingerprintB", field(test, "fingerprintB"), fingerprint_b)
    expect_equal("safetyNumber", field(test, "safetyNumber"),
                 safety_number.safety_number(fingerprint_a, fingerprint_b))


def check(group: dict, test: dict) -> None:
    """Check one SafetyNumberTest."""
    expect_group_type(group, "SafetyNumberTest")
    if field(test, "result") == "valid":
        _verify(test)
        return
    try:
        _verify(test)
    except (VectorFailure, ProtocolError):
        return
    raise VectorFailure("the safety number reproduces, but the vector says it is invalid")
