"""Envelope samples: valid DM, group and SKD envelopes, altered ones, malformed contents."""

import json

from e2ee_interop import envelopes, primitives, sender_key
from e2ee_interop.payload import encode_payload
from e2ee_interop.wire import b64encode, uuid_bytes
from e2ee_interop.checks.envelope import _OPEN

from .common import ED25519_IDENTITY, flip, refused_as, sample_uuid, secret
from .ratchet import Conversation


def _pairwise_to(label: str, plaintext: bytes) -> bytes:
    """A real pairwise message carrying ``plaintext`` (first message of a fresh session)."""
    c = Conversation("env/" + label, 3)
    return c.parties["alice"].send(plaintext, secret("env/" + label + "/nonce")[:12])


def _payload(label: str, text: str) -> bytes:
    return encode_payload({"id": sample_uuid("msg/" + label), "ts": 1_764_000_000_000, "text": text})


def dm_case(label: str, recipients: int = 2) -> dict:
    """A valid DmEnvelopeTest."""
    channel, sender = sample_uuid(label + "/channel"), sample_uuid(label + "/sender")
    key, nonce = secret(label + "/K"), secret(label + "/nonce")[:12]
    payload = _payload(label, "hello, \"world\" \u2014 \U0001F44B")
    ct = envelopes.seal_dm_payload(key, nonce, payload, uuid_bytes(channel), uuid_bytes(sender))
    entry = envelopes.dm_entry_plaintext(key, nonce, ct)
    items = [{"deviceId": sample_uuid(f"{label}/device/{i}"), "entryPlaintext": entry.hex(),
              "pairwiseMessage": _pairwise_to(f"{label}/{i}", entry).hex()} for i in range(recipients)]
    envelope = envelopes.build_dm(uuid_bytes(sender), nonce, key,
                                  [(uuid_bytes(r["deviceId"]), bytes.fromhex(r["pairwiseMessage"])) for r in items], ct)
    return {"comment": f"DM to {recipients} devices", "flags": [], "channelId": channel, "senderDeviceId": sender,
            "payloadKey": key.hex(), "payloadNonce": nonce.hex(), "payload": payload.hex(),
            "keyCommit": envelopes.key_commit(key).hex(), "payloadCiphertext": ct.hex(), "recipients": items,
            "envelope": envelope.hex(), "content": b64encode(envelope), "result": "valid"}


def group_case(label: str, iteration: int) -> dict:
    """A valid GroupEnvelopeTest."""
    channel, sender = sample_uuid(label + "/channel"), sample_uuid(label + "/sender")
    chain_key, seed = secret(label + "/ck"), secret(label + "/sig")
    key_id = int.from_bytes(secret(label + "/keyid")[:4], "big")
    payload = _payload(label, "group message")
    mk, _ = sender_key.chain_step(chain_key)
    nonce = secret(label + "/nonce")[:12]
    envelope, ct, sig = envelopes.build_group(uuid_bytes(channel), uuid_bytes(sender), key_id, iteration,
                                              sender_key.message_aead_key(mk), nonce, seed, payload)
    return {"comment": f"group message at iteration {iteration}", "flags": [], "channelId": channel,
            "senderDeviceId": sender, "keyId": key_id, "iteration": iteration, "chainKey": chain_key.hex(),
            "signingSeed": seed.hex(), "payload": payload.hex(), "nonce": nonce.hex(),
            "signingPublic": primitives.ed25519_public(seed).hex(), "ciphertext": ct.hex(),
            "signature": sig.hex(), "envelope": envelope.hex(), "content": b64encode(envelope), "result": "valid"}


def skd_case(label: str) -> dict:
    """A valid SkdEnvelopeTest."""
    channel, sender = sample_uuid(label + "/channel"), sample_uuid(label + "/sender")
    chain_key, signing_public = secret(label + "/ck"), primitives.ed25519_public(secret(label + "/sig"))
    key_id, iteration = 0x01020304, 42
    skd = sender_key.encode_skd(uuid_bytes(channel), key_id, iteration, chain_key, signing_public)
    items = [{"deviceId": sample_uuid(f"{label}/device/{i}"), "pairwiseMessage": _pairwise_to(f"{label}/{i}", skd).hex()}
             for i in range(2)]
    envelope = envelopes.build_skd(uuid_bytes(sender), [(uuid_bytes(r["deviceId"]), bytes.fromhex(r["pairwiseMessage"]))
                                                       for r in items])
    return {"comment": "SKD to 2 devices", "flags": [], "channelId": channel, "senderDeviceId": sender,
            "keyId": key_id, "iteration": iteration, "chainKey": chain_key.hex(),
            "signingPublic": signing_public.hex(), "skdPlaintext": skd.hex(), "recipients": items,
            "envelope": envelope.hex(), "content": b64encode(envelope), "result": "valid"}


def _altered(test: dict, flag: str, comment: str, failure: str, **changes) -> dict:
    out = json.loads(json.dumps(test))
    if "envelope" in changes:
        changes["content"] = b64encode(changes["envelope"])
        changes["envelope"] = changes["envelope"].hex()
    out.update(changes, comment=comment, flags=[flag], result="invalid", failure=failure)
    return out


def _malformed_contents(dm: dict, group: dict, skd: dict):
    """(flag, comment, content type, content, failure) for MalformedEnvelopeTest."""
    dm_env, group_env, skd_env = (bytes.fromhex(t["envelope"]) for t in (dm, group, skd))
    sender = dm_env[2:18]
    entry_at = 64  # 2 + 16 + 12 + 32 + 2: the first recipient entry
    first_len = int.from_bytes(dm_env[entry_at + 16:entry_at + 18], "big")
    second_at = entry_at + 18 + first_len
    ct_at = len(dm_env) - len(bytes.fromhex(dm["payloadCiphertext"]))
    b = b64encode
    return [
        ("NotBase64", "characters outside the alphabet", "e2ee.dm", "A*==", "malformed"),
        ("Base64Whitespace", "a line break inside content", "e2ee.dm", b(dm_env)[:8] + "\n" + b(dm_env)[8:], "malformed"),
        ("Base64UrlAlphabet", "url-safe alphabet", "e2ee.dm", "-_-_", "malformed"),
        ("Base64MissingPadding", "padding left out", "e2ee.dm", b(dm_env).rstrip("="), "malformed"),
        ("Base64NonZeroPadding", "non-zero padding bits (QR==)", "e2ee.dm", "QR==", "malformed"),
        ("ContentTooLong", "524,292 base64 characters", "e2ee.dm", "A" * 524_292, "limitExceeded"),
        ("EmptyContent", "no bytes", "e2ee.dm", "", "truncated"),
        ("UnknownEnvelopeVersion", "first byte 0x04", "e2ee.dm", b(b"\x04" + dm_env[1:]), "unsupportedVersion"),
        ("UnknownEnvelopeType", "type byte 0x09", "e2ee.dm", b(dm_env[:1] + b"\x09" + dm_env[2:]), "unsupportedVersion"),
        ("ContentTypeMismatch", "a DM envelope posted as e2ee.group", "e2ee.group", dm["content"], "wrongEnvelopeType"),
        ("ZeroRecipients", "n = 0", "e2ee.dm", b(dm_env[:62] + b"\x00\x00" + dm_env[second_at:]), "limitExceeded"),
        ("TooManyRecipients", "n = 1001, checked before any entry", "e2ee.dm", b(dm_env[:62] + b"\x03\xe9" + dm_env[64:]), "limitExceeded"),
        ("DuplicateRecipient", "the second entry names the first recipient", "e2ee.dm",
         b(dm_env[:second_at] + dm_env[entry_at:entry_at + 16] + dm_env[second_at + 16:]), "invalidRecipients"),
        ("RecipientIsSender", "an entry addressed to the sending device", "e2ee.dm",
         b(dm_env[:entry_at] + sender + dm_env[entry_at + 16:]), "invalidRecipients"),
        ("ShortPairwiseMessage", "an entry of 68 bytes", "e2ee.dm",
         b(dm_env[:entry_at + 16] + b"\x00\x44" + dm_env[entry_at + 18:entry_at + 18 + 68] + dm_env[second_at:]), "limitExceeded"),
        ("EntryPastEnd", "an entry length beyond the envelope", "e2ee.dm",
         b(dm_env[:entry_at + 16] + b"\xff\xff" + dm_env[entry_at + 18:]), "truncated"),
        ("UnknownPairwiseVersion", "an entry whose pairwise message starts with 0x05", "e2ee.dm",
         b(dm_env[:entry_at + 18] + b"\x05" + dm_env[entry_at + 19:]), "unsupportedVersion"),
        ("ShortPayloadCiphertext", "payload_ct of 15 bytes", "e2ee.dm", b(dm_env[:ct_at + 15]), "truncated"),
        ("LongPayloadCiphertext", "payload_ct of 65,553 bytes", "e2ee.dm", b(dm_env[:ct_at] + bytes(65_553)),
         "limitExceeded"),
        ("TruncatedDmHeader", "ends inside key_commit", "e2ee.dm", b(dm_env[:40]), "truncated"),
        ("ShortGroupCiphertext", "group ct of 15 bytes", "e2ee.group", b(group_env[:envelopes.GROUP_HEADER_LENGTH] + bytes(15) + group_env[-64:]), "truncated"),
        ("LongGroupCiphertext", "group ct of 65,553 bytes", "e2ee.group", b(group_env[:envelopes.GROUP_HEADER_LENGTH] + bytes(65_553) + group_env[-64:]), "limitExceeded"),
        ("SkdTrailingBytes", "one byte after the last SKD entry", "e2ee.skd", b(skd_env + b"\x00"), "trailingBytes"),
        ("SkdZeroRecipients", "SKD with n = 0", "e2ee.skd", b(skd_env[:18] + b"\x00\x00"), "limitExceeded"),
    ]


def envelope_cases():
    """Valid DM, group and SKD envelopes; altered ones; malformed contents."""
    notes = {
        "ModifiedKeyCommit": "one bit of key_commit flipped",
        "ModifiedPayloadCiphertext": "payload_ct altered and the entry hash recomputed over it",
        "ModifiedEntryHash": "the entry plaintext's payload hash altered",
        "WrongChannel": "opened in another channel than it was made for",
        "SenderMismatch": "senderDeviceId differs from the envelope's",
        "ModifiedGroupSignature": "one bit of the group signature flipped",
        "ModifiedGroupCiphertext": "group ct altered and re-signed",
        "SkdChannelMismatch": "the SKD names another channel",
        "SkdSmallOrderSigningKey": "SK_sig_pub in the SKD is the neutral point",
    }
    dm, group, skd = dm_case("env-dm-1"), group_case("env-group-1", 0), skd_case("env-skd-1")
    cases = [("DmEnvelopeTest", dm), ("DmEnvelopeTest", dm_case("env-dm-2", 1)),
             ("GroupEnvelopeTest", group), ("GroupEnvelopeTest", group_case("env-group-2", 5)),
             ("SkdEnvelopeTest", skd)]
    dm_env = bytes.fromhex(dm["envelope"])
    ct = bytes.fromhex(dm["payloadCiphertext"])
    bad_ct = flip(ct, 0)
    bad_entry = (b"\x01" + bytes.fromhex(dm["payloadKey"]) + primitives.sha256(bytes.fromhex(dm["payloadNonce"]) + bad_ct))
    other = sample_uuid("other-channel")
    group_env = bytes.fromhex(group["envelope"])
    seed = bytes.fromhex(group["signingSeed"])
    forged_head = group_env[:envelopes.GROUP_HEADER_LENGTH]
    forged_ct = flip(bytes.fromhex(group["ciphertext"]), 3)
    forged_sig = primitives.ed25519_sign(seed, envelopes.GROUP_SIG_LABEL + uuid_bytes(group["channelId"]) + forged_head + forged_ct)
    skd_pt = bytes.fromhex(skd["skdPlaintext"])
    altered = [
        ("DmEnvelopeTest", _altered(dm, "ModifiedKeyCommit", notes["ModifiedKeyCommit"], "keyCommitMismatch",
                                    envelope=flip(dm_env, 30))),
        ("DmEnvelopeTest", _altered(dm, "ModifiedPayloadCiphertext", notes["ModifiedPayloadCiphertext"], "badTag",
                                    envelope=dm_env[:-len(ct)] + bad_ct,
                                    recipients=[dict(r, entryPlaintext=bad_entry.hex()) for r in dm["recipients"]])),
        ("DmEnvelopeTest", _altered(dm, "ModifiedEntryHash", notes["ModifiedEntryHash"], "malformed",
                                    recipients=[dict(r, entryPlaintext=flip(bytes.fromhex(r["entryPlaintext"]), 64).hex())
                                                for r in dm["recipients"]])),
        ("DmEnvelopeTest", _altered(dm, "WrongChannel", notes["WrongChannel"], "badTag", channelId=other)),
        ("DmEnvelopeTest", _altered(dm, "SenderMismatch", notes["SenderMismatch"], "senderMismatch",
                                    senderDeviceId=sample_uuid("someone-else"))),
        ("GroupEnvelopeTest", _altered(group, "ModifiedGroupSignature", notes["ModifiedGroupSignature"], "badSignature",
                                       envelope=flip(group_env, len(group_env) - 1))),
        ("GroupEnvelopeTest", _altered(group, "ModifiedGroupCiphertext", notes["ModifiedGroupCiphertext"], "badTag",
                                       envelope=forged_head + forged_ct + forged_sig)),
        ("GroupEnvelopeTest", _altered(group, "WrongChannel", notes["WrongChannel"], "badSignature", channelId=other)),
        ("SkdEnvelopeTest", _altered(skd, "SkdChannelMismatch", notes["SkdChannelMismatch"], "channelMismatch",
                                     skdPlaintext=(skd_pt[:1] + uuid_bytes(other) + skd_pt[17:]).hex())),
        ("SkdEnvelopeTest", _altered(skd, "SkdSmallOrderSigningKey", notes["SkdSmallOrderSigningKey"], "invalidKey",
                                     skdPlaintext=(skd_pt[:57] + ED25519_IDENTITY).hex())),
    ]
    for kind, test in altered:
        refused_as(test["failure"], lambda: _OPEN[kind](test))
        cases.append((kind, test))
    for flag, comment, content_type, content, failure in _malformed_contents(dm, group, skd):
        notes[flag] = comment
        refused_as(failure, lambda: envelopes.parse_content(content, content_type))
        cases.append(("MalformedEnvelopeTest", {"comment": comment, "flags": [flag], "channelId": dm["channelId"],
                                                "contentType": content_type, "content": content,
                                                "result": "invalid", "failure": failure}))
    return notes, cases
