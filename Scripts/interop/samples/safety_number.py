"""Safety-number samples: halves from devices (§7.4) and under user keys (§10.18, B.5)."""

from e2ee_interop import keys, primitives
from e2ee_interop.safety_number import (device_hash, digits, fingerprint, safety_number,
                                        scannable_form, user_key_hash)

from .common import refused_as, sample_uuid, secret


def _blobs(label, count):
    return [keys.identity_blob(secret(f"{label}/ik/{i}"), secret(f"{label}/sig/{i}")).hex() for i in range(count)]


def _device_cases():
    """Users with one and several devices (listed unsorted), and an altered fingerprint."""
    def case(user_a, blobs_a, user_b, blobs_b, comment):
        fa = fingerprint(user_a, [bytes.fromhex(x) for x in blobs_a])
        fb = fingerprint(user_b, [bytes.fromhex(x) for x in blobs_b])
        return {"comment": comment, "flags": [], "userA": user_a, "blobsA": blobs_a, "userB": user_b,
                "blobsB": blobs_b, "fingerprintA": fa, "fingerprintB": fb,
                "safetyNumber": safety_number(fa, fb), "result": "valid"}

    one = case(sample_uuid("sn/u1"), _blobs("sn/u1", 1), sample_uuid("sn/u2"), _blobs("sn/u2", 1), "one device each")
    many = _blobs("sn/u3", 3)
    several = case(sample_uuid("sn/u3"), many[::-1], sample_uuid("sn/u4"), _blobs("sn/u4", 2),
                   "three devices listed out of order, and two")
    altered = dict(one, comment="fingerprintA with one digit changed", flags=["ModifiedFingerprint"],
                   result="invalid", failure="mismatch")
    altered["fingerprintA"] = str((int(one["fingerprintA"][0]) + 1) % 10) + one["fingerprintA"][1:]
    return ({"ModifiedFingerprint": "one digit of fingerprintA changed"},
            [("SafetyNumberTest", one), ("SafetyNumberTest", several), ("SafetyNumberTest", altered)])


def _user_key_cases():
    """A user key against devices (either side), keys on both sides, upper-case user ids, one key
    for two users, and keys of 31 and 33 bytes (refused)."""
    def user_key(label):
        return primitives.ed25519_public(secret(f"sn/key/{label}")).hex()

    def h(user, key, blobs):
        if key:
            return user_key_hash(user, bytes.fromhex(key))
        return device_hash(user, [bytes.fromhex(x) for x in blobs])

    def case(user_a, key_a, blobs_a, user_b, key_b, blobs_b, comment):
        h_a, h_b = h(user_a, key_a, blobs_a), h(user_b, key_b, blobs_b)
        fa, fb = digits(h_a), digits(h_b)
        return {"comment": comment, "flags": [], "userA": user_a, "userKeyA": key_a, "blobsA": blobs_a,
                "userB": user_b, "userKeyB": key_b, "blobsB": blobs_b, "fingerprintA": fa,
                "fingerprintB": fb, "safetyNumber": safety_number(fa, fb),
                "scannableForm": scannable_form(h_a, h_b).hex(), "result": "valid"}

    def refused(flag, comment, user_a, key_a, blobs_a, user_b, key_b, blobs_b):
        refused_as("malformed", lambda: (h(user_a, key_a, blobs_a), h(user_b, key_b, blobs_b)))
        return {"comment": comment, "flags": [flag], "userA": user_a, "userKeyA": key_a, "blobsA": blobs_a,
                "userB": user_b, "userKeyB": key_b, "blobsB": blobs_b, "fingerprintA": "",
                "fingerprintB": "", "safetyNumber": "", "scannableForm": "", "result": "invalid",
                "failure": "malformed"}

    u1, u2, u3, u4 = (sample_uuid(f"snk/u{i}") for i in range(1, 5))
    k1, k2, k3 = user_key("1"), user_key("2"), user_key("3")
    cases = [
        case(u1, k1, [], u2, "", _blobs("snk/u2", 1), "a user key and one device"),
        case(u3, "", _blobs("snk/u3", 2)[::-1], u4, k2, [], "two devices listed out of order, and a user key"),
        case(u1, k1, [], u4, k3, [], "user keys on both sides"),
        case(u1.upper(), k1, [], u2.upper(), "", _blobs("snk/u2", 1),
             "the first case with upper-case user ids (lower-cased for hashing): the same outputs"),
        case(u2, k1, [], u3, k1, [], "one user key for two users: the user id tells them apart"),
        refused("ShortUserKey", "a user key of 31 bytes", u1, k1[:62], [], u2, "", _blobs("snk/u2", 1)),
        refused("LongUserKey", "a user key of 33 bytes", u1, k1, [], u4, k3 + "00", []),
    ]
    return ({"ShortUserKey": "userKeyA is 31 bytes", "LongUserKey": "userKeyB is 33 bytes"},
            [("SafetyNumberUserKeyTest", test) for test in cases])


def safety_number_cases():
    """Both group types of E2EE-SAFETY-NUMBER."""
    device_notes, device_tests = _device_cases()
    key_notes, key_tests = _user_key_cases()
    return {**device_notes, **key_notes}, device_tests + key_tests
