"""Linking a device (PROTOCOL.md text 1.3, §10.22, §10.23, §11.2): the nonce commitment, the
two codes, primary_sig, link plaintexts and envelopes, transfer records.

Parsers are strict and return plain dicts whose keys are the ``fields`` names of
``link_test.json`` (ids as UUID text, bytes as hex, enumerations as integers); encoders take
the same dicts. Every refusal is a typed ``ProtocolError``.
"""

from . import keys, limits, primitives
from .errors import ProtocolError, limit, malformed, trailing, truncated, unsupported
from .wire import Reader, u32, uuid_bytes, uuid_text

COMMIT_LABEL = b"e2ee-link-commit-v1"
CODE_LABEL = b"e2ee-link-code-v1"
PRIMARY_LABEL = b"e2ee-primary-v1"
LINK_TYPE = 0x03
ENVELOPE_TYPE = bytes([0x03, 0x04])
MIN_PAIRWISE_MESSAGE = limits.MIN_PAIRWISE_MESSAGE

KINDS = {1: "request", 2: "accept", 3: "reveal", 4: "grant", 5: "cancel", 6: "recert",
         7: "manifest", 8: "chunk", 9: "ack"}
KIND_BYTES = {name: byte for byte, name in KINDS.items()}
LENGTHS = {"request": 50, "accept": 50, "reveal": 50, "grant": 154, "cancel": 19, "recert": 170,
           "manifest": 68, "chunk": 22, "ack": 22}


def commitment(nonce_n: bytes) -> bytes:
    """``SHA-256("e2ee-link-commit-v1" || nonce_N)``."""
    return primitives.sha256(COMMIT_LABEL + bytes(nonce_n))


def codes(nonce_n: bytes, nonce_p: bytes, user_id: bytes, primary_id: bytes, primary_blob: bytes,
          new_id: bytes, new_blob: bytes):
    """``(code_N, code_P)``: HKDF over both nonces, 10 bytes, two 40-bit halves mod 10^6."""
    for nonce in (nonce_n, nonce_p):
        if len(nonce) != 32:
            raise malformed("linkPlaintext", "nonce length")
    info = CODE_LABEL + user_id + primary_id + bytes(primary_blob) + new_id + bytes(new_blob)
    okm = primitives.hkdf(bytes(32), bytes(nonce_n) + bytes(nonce_p), info, 10)
    return tuple("%06d" % (int.from_bytes(okm[i:i + 5], "big") % 1_000_000) for i in (0, 5))


def primary_message(user_id: bytes, sender: bytes, recipient: bytes, epoch: int, not_after: int) -> bytes:
    """What primary_sig signs."""
    return PRIMARY_LABEL + user_id + sender + recipient + u32(epoch) + u32(not_after)


def _nonzero_id(raw: bytes, what: str) -> str:
    if raw == bytes(16):
        raise malformed("linkPlaintext", f"zero {what}")
    return uuid_text(raw)


def _certificate(raw: bytes) -> str:
    if keys.parse_certificate(raw) is None:
        raise malformed("linkPlaintext", "the zero certificate")
    return raw.hex()


def parse_plaintext(data: bytes) -> dict:
    """Strictly parse a link plaintext into its fields."""
    r = Reader(data, "linkPlaintext")
    if r.byte() != LINK_TYPE:
        raise unsupported("linkPlaintext", data[0])
    kind_byte = r.byte()
    kind = KINDS.get(kind_byte)
    if kind is None:
        raise unsupported("linkPlaintext", kind_byte)
    size = LENGTHS[kind]
    if kind == "chunk" and len(data) > limits.MAX_LINK_CHUNK_PLAINTEXT:
        raise limit("linkPlaintext", limits.MAX_LINK_CHUNK_PLAINTEXT, len(data))
    if len(data) < size:
        raise truncated("linkPlaintext", size, len(data))
    if kind != "chunk" and len(data) > size:
        raise trailing("linkPlaintext", len(data) - size)
    out = {"kind": kind}
    if kind == "request":
        out.update(requestId=uuid_text(r.take(16)), commit=r.take(32).hex())
    elif kind in ("accept", "reveal"):
        out.update(requestId=uuid_text(r.take(16)), nonce=r.take(32).hex())
    elif kind == "grant":
        out["requestId"] = uuid_text(r.take(16))
        out["certificate"] = _certificate(r.take(104))
        out["transferId"] = _nonzero_id(r.take(16), "transfer id")
        out["transferChannelId"] = uuid_text(r.take(16))
    elif kind == "cancel":
        out["id"] = uuid_text(r.take(16))
        reason = r.byte()
        if not 1 <= reason <= 6:
            raise malformed("linkPlaintext", f"cancel reason {reason}")
        out["reason"] = reason
    elif kind == "recert":
        out.update(certificate=_certificate(r.take(104)), primarySignature=r.take(64).hex())
    elif kind == "manifest":
        out["transferId"] = _nonzero_id(r.take(16), "transfer id")
        out["index"] = r.u32()
        out["phase"] = r.byte()
        if out["phase"] not in (1, 2):
            raise malformed("linkPlaintext", "phase")
        out["trustCount"], out["recordCount"], out["chunkCount"] = r.u32(), r.u32(), r.u32()
        out["truncated"] = r.byte()
        if out["truncated"] not in (0, 1):
            raise malformed("linkPlaintext", "flag byte")
        if out["trustCount"] > out["recordCount"]:
            raise malformed("linkPlaintext", "trust count above record count")
        out["digest"] = r.take(32).hex()
    elif kind == "chunk":
        out.update(transferId=_nonzero_id(r.take(16), "transfer id"), index=r.u32(), records=r.rest().hex())
    else:
        out.update(transferId=_nonzero_id(r.take(16), "transfer id"), nextIndex=r.u32())
    r.finish()
    return out


def encode_plaintext(fields: dict) -> bytes:
    """The bytes of a link plaintext described by ``fields`` (as the vectors write them)."""
    kind = fields["kind"]
    head = bytes([LINK_TYPE, KIND_BYTES[kind]])
    h, uid = bytes.fromhex, uuid_bytes
    if kind == "request":
        return head + uid(fields["requestId"]) + h(fields["commit"])
    if kind in ("accept", "reveal"):
        return head + uid(fields["requestId"]) + h(fields["nonce"])
    if kind == "grant":
        return (head + uid(fields["requestId"]) + h(fields["certificate"]) + uid(fields["transferId"])
                + uid(fields["transferChannelId"]))
    if kind == "cancel":
        return head + uid(fields["id"]) + bytes([fields["reason"]])
    if kind == "recert":
        return head + h(fields["certificate"]) + h(fields["primarySignature"])
    if kind == "manifest":
        return (head + uid(fields["transferId"]) + u32(fields["index"]) + bytes([fields["phase"]])
                + u32(fields["trustCount"]) + u32(fields["recordCount"]) + u32(fields["chunkCount"])
                + bytes([fields["truncated"]]) + h(fields["digest"]))
    if kind == "chunk":
        return head + uid(fields["transferId"]) + u32(fields["index"]) + h(fields["records"])
    return head + uid(fields["transferId"]) + u32(fields["nextIndex"])


def parse_envelope(data: bytes):
    """``(sender, recipient, pairwise_message)`` of a link envelope, strictly."""
    data = bytes(data)
    if len(data) < 2:
        raise truncated("linkEnvelope", 2, len(data))
    if data[0] != 0x03:
        raise unsupported("linkEnvelope", data[0])
    if data[1] != 0x04:
        raise unsupported("linkEnvelope", data[1])
    r = Reader(data, "linkEnvelope")
    r.take(2)
    sender, recipient = r.take(16), r.take(16)
    if r.remaining < MIN_PAIRWISE_MESSAGE:
        raise truncated("linkEnvelope", 34 + MIN_PAIRWISE_MESSAGE, len(data))
    if r.remaining > limits.MAX_LINK_PAIRWISE_MESSAGE:
        raise limit("linkEnvelope", limits.MAX_LINK_PAIRWISE_MESSAGE, r.remaining)
    if sender == recipient:
        raise ProtocolError("invalidRecipients", "a link envelope addressed to its sender")
    return sender, recipient, r.rest()


# Transfer records (§11.2) --------------------------------------------------------------------

SUB_KINDS = {1: "ownDevice", 2: "channel", 3: "dmParticipant", 4: "approvedMember", 5: "hold",
             6: "contactKey", 8: "deviceWithoutCertificate"}
SUB_KIND_BYTES = {name: byte for byte, name in SUB_KINDS.items()}
SUB_KIND_LENGTHS = {"ownDevice": 186, "channel": 19, "dmParticipant": 33, "approvedMember": 33,
                    "hold": 50, "contactKey": 248, "deviceWithoutCertificate": 102}
RECORD_KINDS = {1: "trust", 2: "message", 3: "deleted"}


def _enum(value: int, allowed, what: str) -> int:
    if value not in allowed:
        raise malformed("transferRecord", f"{what} {value}")
    return value


def _blob(raw: bytes) -> str:
    keys.parse_identity_blob(raw)
    return raw.hex()


def _cert(raw: bytes) -> str:
    keys.parse_certificate(raw)
    return raw.hex()


def _optional_id(raw: bytes) -> str:
    return "" if raw == bytes(16) else uuid_text(raw)


def _trust(body: bytes) -> dict:
    sub_byte = body[0] if body else None
    if sub_byte is None:
        raise truncated("transferRecord", 1, 0)
    sub = SUB_KINDS.get(sub_byte)
    if sub is None:
        raise unsupported("transferRecord", sub_byte)
    size = SUB_KIND_LENGTHS[sub]
    if len(body) < size:
        raise truncated("transferRecord", size, len(body))
    if len(body) > size:
        raise trailing("transferRecord", len(body) - size)
    r = Reader(body[1:], "transferRecord")
    out = {"kind": "trust", "subKind": sub}
    if sub == "ownDevice":
        out.update(deviceId=uuid_text(r.take(16)), identityBlob=_blob(r.take(65)), certificate=_cert(r.take(104)))
    elif sub == "channel":
        out.update(channelId=uuid_text(r.take(16)), channelKind=_enum(r.byte(), (1, 2), "channel kind"),
                   standing=_enum(r.byte(), range(1, 6), "channel standing"))
    elif sub in ("dmParticipant", "approvedMember"):
        out.update(channelId=uuid_text(r.take(16)), userId=uuid_text(r.take(16)))
    elif sub == "hold":
        out.update(channelId=_optional_id(r.take(16)), userId=uuid_text(r.take(16)),
                   deviceId=_optional_id(r.take(16)), state=_enum(r.byte(), (1, 2), "hold state"))
    elif sub == "contactKey":
        out["userId"] = uuid_text(r.take(16))
        out["userKey"] = keys.check_ed25519_public(r.take(32), "transferRecord").hex()
        out["state"] = _enum(r.byte(), range(1, 6), "contact key state")
        out["userConflicted"] = _enum(r.byte(), (0, 1), "user_conflicted")
        out["seenUntil"], out["seenAt"], out["eMax"] = r.u32(), r.u32(), r.u32()
        out.update(deviceId=uuid_text(r.take(16)), identityBlob=_blob(r.take(65)), certificate=_cert(r.take(104)))
    else:
        out.update(userId=uuid_text(r.take(16)), deviceId=uuid_text(r.take(16)), identityBlob=_blob(r.take(65)),
                   until=r.u32())
    r.finish()
    return out


def read_record(r: Reader) -> dict:
    """One whole record from ``r``: kind, version and len checked before the body is read."""
    kind_byte = r.byte()
    kind = RECORD_KINDS.get(kind_byte)
    if kind is None:
        raise unsupported("transferRecord", kind_byte)
    version = r.byte()
    if version != 1:
        raise unsupported("transferRecord", version)
    length = r.u32()
    if length > limits.MAX_TRANSFER_RECORD_LEN:
        raise limit("transferRecord", limits.MAX_TRANSFER_RECORD_LEN, length)
    body = r.take(length)
    if kind == "trust":
        return _trust(body)
    b = Reader(body, "transferRecord")
    if kind == "deleted":
        if length < 32:
            raise truncated("transferRecord", 32, length)
        out = {"kind": "deleted", "channelId": uuid_text(b.take(16)), "messageId": uuid_text(b.take(16))}
        b.finish()
        return out
    if length < 73:
        raise truncated("transferRecord", 73, length)
    out = {"kind": "message", "channelId": uuid_text(b.take(16)), "messageId": uuid_text(b.take(16)),
           "senderId": uuid_text(b.take(16)), "senderDeviceId": uuid_text(b.take(16)),
           "createdAt": int.from_bytes(b.take(8), "big")}
    flags = b.byte()
    if flags & ~0x01:
        raise malformed("transferRecord", "message flags")
    out["edited"] = flags & 0x01
    out["payload"] = b.rest().hex()
    if len(out["payload"]) // 2 > limits.MAX_PAYLOAD_BYTES:
        raise limit("transferRecord", limits.MAX_PAYLOAD_BYTES, len(out["payload"]) // 2)
    return out


def parse_record(data: bytes) -> dict:
    """Exactly one whole record."""
    r = Reader(data, "transferRecord")
    out = read_record(r)
    r.finish()
    return out


def parse_chunk(data: bytes):
    """The whole records of a chunk, as ``[(fields, whole_bytes)]``; a cut record is refused."""
    r = Reader(data, "transferRecord")
    out = []
    while r.remaining:
        start = r.pos
        fields = read_record(r)
        out.append((fields, r.data[start:r.pos]))
    return out


def encode_record(fields: dict) -> bytes:
    """The bytes of the record ``fields`` describes."""
    h, uid = bytes.fromhex, uuid_bytes

    def opt(text: str) -> bytes:
        return bytes(16) if text == "" else uid(text)

    kind = fields["kind"]
    if kind == "deleted":
        body = uid(fields["channelId"]) + uid(fields["messageId"])
    elif kind == "message":
        body = (uid(fields["channelId"]) + uid(fields["messageId"]) + uid(fields["senderId"])
                + uid(fields["senderDeviceId"]) + fields["createdAt"].to_bytes(8, "big")
                + bytes([fields["edited"]]) + h(fields["payload"]))
    else:
        sub = fields["subKind"]
        body = bytes([SUB_KIND_BYTES[sub]])
        if sub == "ownDevice":
            body += uid(fields["deviceId"]) + h(fields["identityBlob"]) + h(fields["certificate"])
        elif sub == "channel":
            body += uid(fields["channelId"]) + bytes([fields["channelKind"], fields["standing"]])
        elif sub in ("dmParticipant", "approvedMember"):
            body += uid(fields["channelId"]) + uid(fields["userId"])
        elif sub == "hold":
            body += opt(fields["channelId"]) + uid(fields["userId"]) + opt(fields["deviceId"]) + bytes([fields["state"]])
        elif sub == "contactKey":
            body += (uid(fields["userId"]) + h(fields["userKey"]) + bytes([fields["state"], fields["userConflicted"]])
                     + u32(fields["seenUntil"]) + u32(fields["seenAt"]) + u32(fields["eMax"]) + uid(fields["deviceId"])
                     + h(fields["identityBlob"]) + h(fields["certificate"]))
        else:
            body += uid(fields["userId"]) + uid(fields["deviceId"]) + h(fields["identityBlob"]) + u32(fields["until"])
    kind_byte = {name: byte for byte, name in RECORD_KINDS.items()}[kind]
    return bytes([kind_byte, 1]) + u32(len(body)) + body
