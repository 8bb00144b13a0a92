"""E2EE-ENVELOPE: DM, group and SKD envelopes, and malformed contents.

valid: every output (key commitment, ciphertexts, signature, entry plaintexts, SKD plaintext,
envelope, content) is recomputed from the inputs, then ``content`` is parsed strictly and
opened as a recipient would. invalid: the recipient's whole path (strict parse of
``content``, sender and key checks, opening) must refuse.
"""

from .. import envelopes, primitives, sender_key
from ..errors import ProtocolError
from ..wire import b64encode, uuid_bytes
from .common import (VectorFailure, expect_bytes, expect_equal, expect_group_type, expect_hex,
                     expect_refused, field, hexfield, intfield)

ALGORITHM = "E2EE-ENVELOPE"


def _uuid(test: dict, name: str) -> bytes:
    try:
        return uuid_bytes(field(test, name))
    except ProtocolError as error:
        raise VectorFailure(f"{name} is not a lower-case UUID") from error


def _content(test: dict) -> str:
    content = field(test, "content")
    if not isinstance(content, str):
        raise VectorFailure("content must be a string")
    return content


def _check_sender(parsed, sender: bytes) -> None:
    if parsed.sender_device_id != sender:
        raise ProtocolError("senderMismatch")


def _expect_envelope(test: dict, envelope: bytes) -> None:
    expect_hex(test, "envelope", envelope)
    expect_equal("content", _content(test), b64encode(envelope))


def _recipients(test: dict, with_plaintext: bool):
    items = field(test, "recipients")
    if not isinstance(items, list):
        raise VectorFailure("recipients must be a list")
    out = []
    for item in items:
        entry = (_uuid(item, "deviceId"), hexfield(item, "pairwiseMessage"))
        out.append(entry + ((hexfield(item, "entryPlaintext"),) if with_plaintext else ()))
    return out


def _expect_entries(parsed, recipients) -> None:
    expect_equal("recipients (parsed from content)", [r[:2] for r in recipients],
                 [tuple(e) for e in parsed.entries])


# DM --------------------------------------------------------------------------------------------

def _open_dm(test: dict):
    channel, sender = _uuid(test, "channelId"), _uuid(test, "senderDeviceId")
    parsed = envelopes.parse_content(_content(test), "e2ee.dm")
    _check_sender(parsed, sender)
    return parsed, [envelopes.open_dm(parsed, channel, r[2]) for r in _recipients(test, True)]


def _check_dm(test: dict) -> None:
    channel, sender = _uuid(test, "channelId"), _uuid(test, "senderDeviceId")
    key, nonce, payload = hexfield(test, "payloadKey"), hexfield(test, "payloadNonce"), hexfield(test, "payload")
    expect_hex(test, "keyCommit", envelopes.key_commit(key))
    ciphertext = envelopes.seal_dm_payload(key, nonce, payload, channel, sender)
    expect_hex(test, "payloadCiphertext", ciphertext)
    entry = envelopes.dm_entry_plaintext(key, nonce, ciphertext)
    recipients = _recipients(test, True)
    if not recipients:
        raise VectorFailure("a valid DM has at least one recipient")
    for number, recipient in enumerate(recipients):
        expect_bytes(f"recipients[{number}].entryPlaintext", recipient[2], entry)
    _expect_envelope(test, envelopes.build_dm(sender, nonce, key, [r[:2] for r in recipients], ciphertext))
    parsed, payloads = _open_dm(test)
    _expect_entries(parsed, recipients)
    for opened in payloads:
        expect_bytes("payload (opened by a recipient)", payload, opened)


# Group -----------------------------------------------------------------------------------------

def _signing_public(test: dict) -> bytes:
    if "signingSeed" in test:
        return primitives.ed25519_public(hexfield(test, "signingSeed"))
    return hexfield(test, "signingPublic")


def _open_group(test: dict) -> bytes:
    channel, sender = _uuid(test, "channelId"), _uuid(test, "senderDeviceId")
    parsed = envelopes.parse_content(_content(test), "e2ee.group")
    _check_sender(parsed, sender)
    if parsed.key_id != intfield(test, "keyId"):
        raise ProtocolError("unknownSenderKey")
    message_key, _ = sender_key.derive(hexfield(test, "chainKey"), intfield(test, "iteration"),
                                       parsed.iteration)
    return envelopes.open_group(parsed, channel, _signing_public(test), sender_key.message_aead_key(message_key))


def _check_group(test: dict) -> None:
    channel, sender = _uuid(test, "channelId"), _uuid(test, "senderDeviceId")
    seed, payload = hexfield(test, "signingSeed"), hexfield(test, "payload")
    expect_hex(test, "signingPublic", primitives.ed25519_public(seed))
    message_key, _ = sender_key.chain_step(hexfield(test, "chainKey"))
    envelope, ciphertext, signature = envelopes.build_group(
        channel, sender, intfield(test, "keyId"), intfield(test, "iteration"), sender_key.message_aead_key(message_key),
        hexfield(test, "nonce"), seed, payload)
    expect_hex(test, "ciphertext", ciphertext)
    expect_hex(test, "signature", signature)
    _expect_envelope(test, envelope)
    expect_bytes("payload (opened by a member)", payload, _open_group(test))


# SKD -------------------------------------------------------------------------------------------

def _open_skd(test: dict):
    channel, sender = _uuid(test, "channelId"), _uuid(test, "senderDeviceId")
    parsed = envelopes.parse_content(_content(test), "e2ee.skd")
    _check_sender(parsed, sender)
    return parsed, sender_key.parse_skd(hexfield(test, "skdPlaintext"), channel)


def _check_skd(test: dict) -> None:
    channel, sender = _uuid(test, "channelId"), _uuid(test, "senderDeviceId")
    key_id, iteration = intfield(test, "keyId"), intfield(test, "iteration")
    chain_key, signing_public = hexfield(test, "chainKey"), hexfield(test, "signingPublic")
    expect_hex(test, "skdPlaintext",
               sender_key.encode_skd(channel, key_id, iteration, chain_key, signing_public))
    recipients = _recipients(test, False)
    _expect_envelope(test, envelopes.build_skd(sender, recipients))
    parsed, skd = _open_skd(test)
    _expect_entries(parsed, recipients)
    expect_equal("skdPlaintext (parsed)", (key_id, iteration, chain_key, signing_public),
                 (skd.key_id, skd.iteration, skd.chain_key, skd.signing_public))


# Malformed -------------------------------------------------------------------------------------

def _open_malformed(test: dict):
    _uuid(test, "channelId")
    content_type = field(test, "contentType")
    if content_type not in envelopes.CONTENT_TYPES:
        raise VectorFailure("contentType must be e2ee.dm, e2ee.group or e2ee.skd")
    return envelopes.parse_content(_content(test), content_type)


_VALID = {"DmEnvelopeTest": _check_dm, "GroupEnvelopeTest": _check_group, "SkdEnvelopeTest": _check_skd}
_OPEN = {"DmEnvelopeTest": _open_dm, "GroupEnvelopeTest": _open_group, "SkdEnvelopeTest": _open_skd,
         "MalformedEnvelopeTest": _open_malformed}


def check(group: dict, test: dict) -> None:
    """Check one envelope test."""
    kind = expect_group_type(group, *_OPEN)
    if field(test, "result") == "invalid":
        expect_refused(lambda: _OPEN[kind](test), "the envelope", test.get("failure"))
        return
    if kind not in _VALID:
        raise VectorFailure(f"{kind} tests are all invalid")
    _VALID[kind](test)
