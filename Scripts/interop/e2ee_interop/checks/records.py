"""E2EE-SIGNED-PREKEY-RECORD (group type RecordTest): text 1.3's signed prekey record (§1.4)
and how a contact checks it (§10.3).

valid: the identity blob, the certificate (zero when ``userKeySeed`` is empty, else issued by
the user key for ``certifiedUserId``/``certifiedDeviceId``), the 141-byte record and its SIG
signature are recomputed from the private inputs; the bundle made of the published values
then parses, and its certificate verifies for (``userId``, ``deviceId``, the blob) exactly when
``certified`` says.
invalid: that bundle must be refused; ``certificate`` is empty and ``certified`` false.
"""

from .. import keys
from ..wire import b64encode, uuid_bytes
from .common import (VectorFailure, expect_equal, expect_group_type, expect_hex, expect_refused,
                     field, hexfield, intfield)

ALGORITHM = "E2EE-SIGNED-PREKEY-RECORD"


def published_bundle(test: dict) -> keys.Bundle:
    """The bundle made of the vector's published values, read as a contact reads it."""
    return keys.verify_bundle(hexfield(test, "identityBlob"), hexfield(test, "record"),
                              hexfield(test, "recordSignature"))


def _certified(test: dict) -> bool:
    value = field(test, "certified")
    if not isinstance(value, bool):
        raise VectorFailure("field 'certified' is not a boolean")
    return value


def check(group: dict, test: dict) -> None:
    """Check one RecordTest."""
    expect_group_type(group, "RecordTest")
    user_id, device_id = uuid_bytes(field(test, "userId")), uuid_bytes(field(test, "deviceId"))
    if field(test, "result") == "invalid":
        expect_refused(lambda: published_bundle(test), "the record", test.get("failure"))
        if _certified(test) or field(test, "certificate") != "":
            raise VectorFailure("an invalid test must have an empty certificate and certified false")
        return
    blob = keys.identity_blob(hexfield(test, "identityPrivate"), hexfield(test, "signingSeed"))
    seed = hexfield(test, "userKeySeed")
    if seed:
        cert = keys.issue_certificate(seed, uuid_bytes(field(test, "certifiedUserId")),
                                      uuid_bytes(field(test, "certifiedDeviceId")), blob,
                                      intfield(test, "epoch"), intfield(test, "notAfter"))
    else:
        if (field(test, "certifiedUserId"), field(test, "certifiedDeviceId"),
                intfield(test, "epoch"), intfield(test, "notAfter")) != ("", "", 0, 0):
            raise VectorFailure("a zero certificate names no user, device, epoch or not_after")
        cert = keys.ZERO_CERTIFICATE
    record = keys.signed_prekey_record(intfield(test, "signedPrekeyId"),
                                       hexfield(test, "signedPrekeyPrivate"), cert)
    expect_hex(test, "identityBlob", blob)
    expect_hex(test, "certificate", cert)
    expect_hex(test, "record", record)
    expect_equal("the record's base64 length", 188, len(b64encode(record)))
    expect_hex(test, "recordSignature", keys.sign_signed_prekey(hexfield(test, "signingSeed"), record))
    bundle = published_bundle(test)
    expect_equal("certified", _certified(test), bundle.certified_for(user_id, device_id))
