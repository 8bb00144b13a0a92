"""E2EE-LINK (link_test.json): protocol text 1.3's link wire layer (§10.22, §10.23, §11.2).

LinkCodeTest: commit and both codes recomputed from the nonces, ids and blobs.
PrimarySignatureTest: valid — the user key and signature recomputed from the seed and verified;
invalid — the kept signature must not verify over the altered fields.
LinkPlaintextTest, TransferRecordTest: valid — the bytes are built from ``fields`` and must equal
the vector's; parsing them must give ``fields`` back; invalid — the parser refuses.
LinkEnvelopeTest: valid — the envelope framed from its ids and pairwise message; invalid — refused.
TransferChunkTest: valid — the chunk is the concatenation of ``records``, parses into them, and
``digest`` is SHA-256 over them; invalid — the chunk is refused.
"""

from .. import link, primitives
from ..errors import ProtocolError
from ..wire import uuid_bytes
from .common import (VectorFailure, expect_bytes, expect_equal, expect_group_type, expect_hex,
                     expect_refused, field, hexfield, intfield)

ALGORITHM = "E2EE-LINK"


def _codes(test: dict) -> None:
    nonce_n, nonce_p = hexfield(test, "nonceN"), hexfield(test, "nonceP")
    expect_hex(test, "commit", link.commitment(nonce_n))
    code_n, code_p = link.codes(nonce_n, nonce_p, uuid_bytes(field(test, "userId")),
                                uuid_bytes(field(test, "primaryDeviceId")), hexfield(test, "primaryIdentityBlob"),
                                uuid_bytes(field(test, "newDeviceId")), hexfield(test, "newIdentityBlob"))
    expect_equal("codeN", field(test, "codeN"), code_n)
    expect_equal("codeP", field(test, "codeP"), code_p)


def _primary_signature(test: dict) -> None:
    message = link.primary_message(uuid_bytes(field(test, "userId")), uuid_bytes(field(test, "senderDeviceId")),
                                   uuid_bytes(field(test, "recipientDeviceId")), intfield(test, "epoch"),
                                   intfield(test, "notAfter"))
    user_key, signature = hexfield(test, "userKey"), hexfield(test, "signature")
    verifies = primitives.ed25519_verify(user_key, message, signature)
    if field(test, "result") == "invalid":
        if verifies:
            raise VectorFailure("the altered primary_sig case verifies")
        return
    seed = hexfield(test, "userKeySeed")
    expect_hex(test, "userKey", primitives.ed25519_public(seed))
    expect_hex(test, "signature", primitives.ed25519_sign(seed, message))
    if not verifies:
        raise VectorFailure("primary_sig does not verify")


def _parsed(what: str, parse, encode, data: bytes, fields) -> None:
    if not isinstance(fields, dict):
        raise VectorFailure("field 'fields' is not an object")
    expect_bytes(what, data, encode(fields))
    expect_equal("fields", fields, parse(data))


def check(group: dict, test: dict) -> None:
    """Check one test of link_test.json."""
    kind = expect_group_type(group, "LinkCodeTest", "PrimarySignatureTest", "LinkPlaintextTest",
                             "LinkEnvelopeTest", "TransferRecordTest", "TransferChunkTest")
    invalid = field(test, "result") == "invalid"
    if kind == "LinkCodeTest":
        if invalid:
            expect_refused(lambda: _codes(test), "the codes", test.get("failure"))
        else:
            _codes(test)
    elif kind == "PrimarySignatureTest":
        _primary_signature(test)
    elif kind == "LinkPlaintextTest":
        data = hexfield(test, "plaintext")
        if invalid:
            expect_refused(lambda: link.parse_plaintext(data), "the plaintext", test.get("failure"))
        else:
            _parsed("plaintext", link.parse_plaintext, link.encode_plaintext, data, field(test, "fields"))
    elif kind == "LinkEnvelopeTest":
        data = hexfield(test, "envelope")
        if invalid:
            expect_refused(lambda: link.parse_envelope(data), "the envelope", test.get("failure"))
            return
        sender, recipient = uuid_bytes(field(test, "senderDeviceId")), uuid_bytes(field(test, "recipientDeviceId"))
        message = hexfield(test, "pairwiseMessage")
        expect_bytes("envelope", data, link.ENVELOPE_TYPE + sender + recipient + message)
        expect_equal("the parsed envelope", (sender, recipient, message), link.parse_envelope(data))
    elif kind == "TransferRecordTest":
        data = hexfield(test, "record")
        if invalid:
            expect_refused(lambda: link.parse_record(data), "the record", test.get("failure"))
        else:
            _parsed("record", link.parse_record, link.encode_record, data, field(test, "fields"))
    else:
        data = hexfield(test, "chunk")
        if invalid:
            expect_refused(lambda: link.parse_chunk(data), "the chunk", test.get("failure"))
            return
        records = [bytes.fromhex(item) for item in field(test, "records")]
        expect_bytes("chunk", data, b"".join(records))
        parsed = link.parse_chunk(data)
        expect_equal("the chunk's records", records, [whole for _, whole in parsed])
        for fields, whole in parsed:
            expect_bytes("a record of the chunk", whole, link.encode_record(fields))
        expect_hex(test, "digest", primitives.sha256(b"".join(records)))


__all__ = ["ALGORITHM", "check", "ProtocolError"]
