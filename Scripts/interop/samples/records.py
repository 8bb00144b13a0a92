"""Signed prekey record samples (text 1.3): valid records, certified or not, and refusals."""

from e2ee_interop import keys, primitives
from e2ee_interop.checks.records import published_bundle
from e2ee_interop.wire import u32, uuid_bytes

from .common import ED25519_IDENTITY, refused_as, sample_uuid, secret

NOT_AFTER = 1_766_000_000
# B + T with T of order 8: a valid point with a torsion component (§0.8 refuses it).
TORSION_POINT = bytes.fromhex("da99e28ba529cdde35a25fba9059e78ecaee239f99755b9b1aa4f65df00803e2")


def record_inputs(user_seed: bool, certified_user: str = "", certified_device: str = "",
                  epoch: int = 0, not_after: int = 0) -> dict:
    """The private inputs of one record test."""
    return {
        "userId": sample_uuid("records/user"), "deviceId": sample_uuid("records/device"),
        "identityPrivate": secret("records/ik").hex(), "signingSeed": secret("records/sig").hex(),
        "signedPrekeyId": int.from_bytes(secret("records/spkid")[:4], "big") | 1,
        "signedPrekeyPrivate": secret("records/spk").hex(),
        "userKeySeed": secret("records/umk").hex() if user_seed else "",
        "certifiedUserId": certified_user, "certifiedDeviceId": certified_device,
        "epoch": epoch, "notAfter": not_after,
    }


def record_outputs(inputs: dict) -> dict:
    """Every output of a valid record test."""
    h = {k: bytes.fromhex(inputs[k]) for k in ("identityPrivate", "signingSeed",
                                               "signedPrekeyPrivate", "userKeySeed")}
    blob = keys.identity_blob(h["identityPrivate"], h["signingSeed"])
    cert = keys.ZERO_CERTIFICATE
    if h["userKeySeed"]:
        cert = keys.issue_certificate(h["userKeySeed"], uuid_bytes(inputs["certifiedUserId"]),
                                      uuid_bytes(inputs["certifiedDeviceId"]), blob,
                                      inputs["epoch"], inputs["notAfter"])
    record = keys.signed_prekey_record(inputs["signedPrekeyId"], h["signedPrekeyPrivate"], cert)
    signature = keys.sign_signed_prekey(h["signingSeed"], record)
    bundle = keys.verify_bundle(blob, record, signature)
    certified = bundle.certified_for(uuid_bytes(inputs["userId"]), uuid_bytes(inputs["deviceId"]))
    return {"identityBlob": blob.hex(), "certificate": cert.hex(), "record": record.hex(),
            "recordSignature": signature.hex(), "certified": certified}


def record_cases():
    """Valid records (zero, certified, certified for someone else) and refused ones."""
    user, device = sample_uuid("records/user"), sample_uuid("records/device")
    other_user, other_device = sample_uuid("records/other-user"), sample_uuid("records/other-device")
    valid = [
        ("zero certificate: no certificate, uncertified", record_inputs(False)),
        ("certified at epoch 1", record_inputs(True, user, device, 1, NOT_AFTER)),
        ("certified at the highest epoch", record_inputs(True, user, device, 2**32 - 2, 2**32 - 1)),
        ("a certificate made for another device: uncertified",
         record_inputs(True, user, other_device, 1, NOT_AFTER)),
        ("a certificate made for another user: uncertified",
         record_inputs(True, other_user, device, 1, NOT_AFTER)),
    ]
    cases = [("RecordTest", dict(comment=comment, flags=[], **inputs, **record_outputs(inputs),
                                 result="valid"))
             for comment, inputs in valid]
    zero_inputs, certified_inputs = valid[0][1], valid[1][1]
    zero, certified = record_outputs(zero_inputs), record_outputs(certified_inputs)
    seed, umk = bytes.fromhex(zero_inputs["signingSeed"]), bytes.fromhex(certified_inputs["userKeySeed"])
    blob = bytes.fromhex(zero["identityBlob"])
    zero_record, good = bytes.fromhex(zero["record"]), bytes.fromhex(certified["record"])
    head, issued = good[:37], good[37:]

    def sign(record: bytes, label: bytes = keys.SPK_SIGNATURE_LABEL) -> bytes:
        return primitives.ed25519_sign(seed, label + record)

    def cert(user_key: bytes, epoch: int) -> bytes:
        message = keys.certificate_message(uuid_bytes(user), uuid_bytes(device), blob, user_key,
                                           epoch, NOT_AFTER)
        return user_key + u32(epoch) + u32(NOT_AFTER) + primitives.ed25519_sign(umk, message)

    version1 = b"\x01" + zero_record[1:37]
    alterations = [  # flag, meaning, failure, based on the certified record, record, signature
        ("Version1Record", "text 1.2's 37-byte form, signed under e2ee-spk-v1", "unsupportedVersion",
         False, version1, sign(version1, keys.V1_SPK_SIGNATURE_LABEL)),
        ("UnknownRecordVersion", "version byte 0x03, re-signed", "unsupportedVersion", False,
         b"\x03" + zero_record[1:], None),
        ("TruncatedRecord", "a record of 140 bytes, re-signed", "truncated", False, zero_record[:-1], None),
        ("TrailingRecord", "a record of 142 bytes, re-signed", "trailingBytes", False,
         zero_record + b"\x00", None),
        ("ModifiedRecordSignature", "one bit of the record's signature flipped", "badSignature", True,
         good, bytes(b ^ (1 if i == 40 else 0) for i, b in enumerate(sign(good)))),
        ("ModifiedCertificate", "one bit of not_after flipped after SIG signed", "badSignature", True,
         good[:76] + bytes([good[76] ^ 1]) + good[77:], sign(good)),
        ("Version1SignatureLabel", "the record signed under e2ee-spk-v1", "badSignature", False,
         zero_record, sign(zero_record, keys.V1_SPK_SIGNATURE_LABEL)),
        ("SmallOrderUserKey", "UMK_pub is the neutral point, re-signed", "invalidKey", True,
         head + cert(ED25519_IDENTITY, 1), None),
        ("TorsionUserKey", "UMK_pub outside the prime-order subgroup, re-signed", "invalidKey", True,
         head + cert(TORSION_POINT, 1), None),
        ("ZeroUserKey", "UMK_pub all zero, the rest not, re-signed", "invalidKey", True,
         head + bytes(32) + issued[32:], None),
        ("ZeroEpoch", "epoch 0, re-signed", "malformed", True,
         head + cert(primitives.ed25519_public(umk), 0), None),
        ("MaxEpoch", "epoch 2^32 - 1, re-signed", "malformed", True,
         head + cert(primitives.ed25519_public(umk), 2**32 - 1), None),
    ]
    notes = {}
    for flag, meaning, failure, on_certified, record, signature in alterations:
        notes[flag] = meaning
        base = certified_inputs if on_certified else zero_inputs
        test = dict(comment=meaning, flags=[flag], **base,
                    **(certified if on_certified else zero))
        test.update(certificate="", record=record.hex(),
                    recordSignature=(signature or sign(record)).hex(), certified=False,
                    result="invalid")
        test["failure"] = refused_as(failure, lambda: published_bundle(test))
        cases.append(("RecordTest", test))
    return notes, cases
