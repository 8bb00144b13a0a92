"""Safety-number samples."""

from e2ee_interop import keys
from e2ee_interop.safety_number import fingerprint, safety_number

from .common import sample_uuid, secret


def safety_number_cases():
    """Users with one and several devices (listed unsorted), and an altered fingerprint."""
    def blobs(label, count):
        return [keys.identity_blob(secret(f"{label}/ik/{i}"), secret(f"{label}/sig/{i}")).hex() for i in range(count)]

    def case(user_a, blobs_a, user_b, blobs_b, comment):
        fa = fingerprint(user_a, [bytes.fromhex(x) for x in blobs_a])
        fb = fingerprint(user_b, [bytes.fromhex(x) for x in blobs_b])
        return {"comment": comment, "flags": [], "userA": user_a, "blobsA": blobs_a, "userB": user_b,
                "blobsB": blobs_b, "fingerprintA": fa, "fingerprintB": fb,
                "safetyNumber": safety_number(fa, fb), "result": "valid"}

    one = case(sample_uuid("sn/u1"), blobs("sn/u1", 1), sample_uuid("sn/u2"), blobs("sn/u2", 1), "one device each")
    many = blobs("sn/u3", 3)
    several = case(sample_uuid("sn/u3"), many[::-1], sample_uuid("sn/u4"), blobs("sn/u4", 2),
                   "three devices listed out of order, and two")
    altered = dict(one, comment="fingerprintA with one digit changed", flags=["ModifiedFingerprint"],
                   result="invalid", failure="mismatch")
    altered["fingerprintA"] = str((int(one["fingerprintA"][0]) + 1) % 10) + one["fingerprintA"][1:]
    return ({"ModifiedFingerprint": "one digit of fingerprintA changed"},
            [("SafetyNumberTest", one), ("SafetyNumberTest", several), ("SafetyNumberTest", altered)])
