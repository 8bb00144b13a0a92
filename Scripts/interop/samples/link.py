"""Link samples (text 1.3, §10.22, §10.23, §11.2): codes, primary_sig, link plaintexts and
envelopes, transfer records and chunks, and refusals."""

from e2ee_interop import keys, link, primitives
from e2ee_interop.wire import uuid_bytes

from .common import refused_as, sample_uuid, secret

NOT_AFTER = 1_766_000_000


def _ids():
    return {name: sample_uuid("link/" + name) for name in
            ("user", "primary", "new", "request", "transfer", "channel", "contact", "message")}


def link_cases():
    """``(notes, cases)`` of link_test.json's six group types."""
    ids = _ids()
    raw = {name: uuid_bytes(value) for name, value in ids.items()}
    primary_blob = keys.identity_blob(secret("link/p-ik"), secret("link/p-sig"))
    new_blob = keys.identity_blob(secret("link/n-ik"), secret("link/n-sig"))
    umk = secret("link/umk")
    nonce_n, nonce_p = secret("link/nonce-n"), secret("link/nonce-p")
    cert = keys.issue_certificate(umk, raw["user"], raw["new"], new_blob, 2, NOT_AFTER)
    notes, cases = {}, []
    code_n, code_p = link.codes(nonce_n, nonce_p, raw["user"], raw["primary"], primary_blob, raw["new"], new_blob)
    cases.append(("LinkCodeTest", dict(
        comment="codes of two sample nonces", flags=[], userId=ids["user"], primaryDeviceId=ids["primary"],
        primaryIdentityBlob=primary_blob.hex(), newDeviceId=ids["new"], newIdentityBlob=new_blob.hex(),
        nonceN=nonce_n.hex(), nonceP=nonce_p.hex(), commit=link.commitment(nonce_n).hex(), codeN=code_n, codeP=code_p,
        result="valid")))
    message = link.primary_message(raw["user"], raw["primary"], raw["new"], 2, NOT_AFTER)
    signature = primitives.ed25519_sign(umk, message)
    sig_test = dict(userKeySeed=umk.hex(), userId=ids["user"], senderDeviceId=ids["primary"], recipientDeviceId=ids["new"],
                    epoch=2, notAfter=NOT_AFTER, userKey=primitives.ed25519_public(umk).hex(), signature=signature.hex())
    cases.append(("PrimarySignatureTest", dict(comment="primary_sig", flags=[], **sig_test, result="valid")))
    notes["SwappedDevices"] = "primary_sig: sender and recipient swapped, the signature kept"
    cases.append(("PrimarySignatureTest", dict(comment="sender and recipient swapped", flags=["SwappedDevices"],
                                               **{**sig_test, "senderDeviceId": ids["new"], "recipientDeviceId": ids["primary"]},
                                               result="invalid", failure="badSignature")))
    plaintexts = [
        {"kind": "request", "requestId": ids["request"], "commit": link.commitment(nonce_n).hex()},
        {"kind": "accept", "requestId": ids["request"], "nonce": nonce_p.hex()},
        {"kind": "grant", "requestId": ids["request"], "certificate": cert.hex(), "transferId": ids["transfer"],
         "transferChannelId": ids["channel"]},
        {"kind": "cancel", "id": ids["request"], "reason": 5},
        {"kind": "recert", "certificate": cert.hex(), "primarySignature": signature.hex()},
        {"kind": "manifest", "transferId": ids["transfer"], "index": 0, "phase": 1, "trustCount": 1, "recordCount": 2,
         "chunkCount": 1, "truncated": 0, "digest": secret("link/digest").hex()},
        {"kind": "ack", "transferId": ids["transfer"], "nextIndex": 1},
    ]
    records = [
        {"kind": "trust", "subKind": "ownDevice", "deviceId": ids["new"], "identityBlob": new_blob.hex(), "certificate": cert.hex()},
        {"kind": "trust", "subKind": "hold", "channelId": "", "userId": ids["contact"], "deviceId": ids["message"], "state": 2},
        {"kind": "message", "channelId": ids["channel"], "messageId": ids["message"], "senderId": ids["contact"],
         "senderDeviceId": ids["new"], "createdAt": 1_766_000_000_000_001, "edited": 1, "payload": b'{"v":1}'.hex()},
        {"kind": "deleted", "channelId": ids["channel"], "messageId": ids["message"]},
    ]
    encoded = [link.encode_record(fields) for fields in records]
    plaintexts.append({"kind": "chunk", "transferId": ids["transfer"], "index": 1, "records": b"".join(encoded).hex()})
    for fields in plaintexts:
        cases.append(("LinkPlaintextTest", dict(comment=fields["kind"], flags=[], fields=fields,
                                                plaintext=link.encode_plaintext(fields).hex(), result="valid")))
    grant = link.encode_plaintext(plaintexts[2])
    bad_plaintexts = [
        ("UnknownKind", "kind 0x0a", "unsupportedVersion", b"\x03\x0a" + grant[2:]),
        ("TrailingGrant", "a grant of 155 bytes", "trailingBytes", grant + b"\x00"),
        ("ZeroTransferIdGrant", "a grant whose transfer_id is zero", "malformed", grant[:122] + bytes(16) + grant[138:]),
        ("CancelReasonSeven", "cancel reason 7", "malformed", link.encode_plaintext(plaintexts[3])[:-1] + b"\x07"),
    ]
    for flag, meaning, failure, data in bad_plaintexts:
        notes[flag] = meaning
        cases.append(("LinkPlaintextTest", dict(comment=meaning, flags=[flag], fields={}, plaintext=data.hex(), result="invalid",
                                                failure=refused_as(failure, lambda: link.parse_plaintext(data)))))
    pairwise = secret("link/pairwise") * 3
    envelope = link.ENVELOPE_TYPE + raw["primary"] + raw["new"] + pairwise
    cases.append(("LinkEnvelopeTest", dict(comment="a link envelope", flags=[], senderDeviceId=ids["primary"],
                                           recipientDeviceId=ids["new"], pairwiseMessage=pairwise.hex(), envelope=envelope.hex(),
                                           result="valid")))
    to_itself = link.ENVELOPE_TYPE + raw["primary"] + raw["primary"] + pairwise
    notes["SenderIsRecipient"] = "link envelope: the recipient is the sender"
    cases.append(("LinkEnvelopeTest", dict(comment="addressed to its sender", flags=["SenderIsRecipient"], senderDeviceId="",
                                           recipientDeviceId="", pairwiseMessage="", envelope=to_itself.hex(), result="invalid",
                                           failure=refused_as("invalidRecipients", lambda: link.parse_envelope(to_itself)))))
    for fields, data in zip(records, encoded):
        cases.append(("TransferRecordTest", dict(comment=fields["kind"], flags=[], fields=fields, record=data.hex(), result="valid")))
    channel = link.encode_record({"kind": "trust", "subKind": "channel", "channelId": ids["channel"], "channelKind": 1, "standing": 1})
    bad_records = [
        ("ReservedSubKind", "trust sub-kind 0x07", "unsupportedVersion", channel[:6] + b"\x07" + channel[7:]),
        ("LengthAboveLimit", "len 65,610", "limitExceeded", bytes([2, 1, 0, 1, 0, 0x4a])),
        ("RecordVersionTwo", "record version 2", "unsupportedVersion", encoded[3][:1] + b"\x02" + encoded[3][2:]),
    ]
    for flag, meaning, failure, data in bad_records:
        notes[flag] = meaning
        cases.append(("TransferRecordTest", dict(comment=meaning, flags=[flag], fields={}, record=data.hex(), result="invalid",
                                                 failure=refused_as(failure, lambda: link.parse_record(data)))))
    whole = b"".join(encoded)
    cases.append(("TransferChunkTest", dict(comment="four records", flags=[], records=[r.hex() for r in encoded], chunk=whole.hex(),
                                            digest=primitives.sha256(whole).hex(), result="valid")))
    notes["ChunkEndsInsideRecord"] = "chunk: the last record cut by one byte"
    cases.append(("TransferChunkTest", dict(comment="cut", flags=["ChunkEndsInsideRecord"], records=[], chunk=whole[:-1].hex(),
                                            digest="", result="invalid",
                                            failure=refused_as("truncated", lambda: link.parse_chunk(whole[:-1])))))
    return notes, cases
