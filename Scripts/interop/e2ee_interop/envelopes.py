"""Envelopes, a message's ``content`` (PROTOCOL.md §5, limits §8): build, parse, open.

DM:    0x03 0x01 || sender(16) || payload_nonce(12) || key_commit(32) || n(u16)
       || n × (recipient(16) || len(u16) || pairwise message) || payload_ct
Group: 0x03 0x02 || sender(16) || key_id(u32) || iteration(u32) || ct || sig(64)
SKD:   0x03 0x03 || sender(16) || n(u16) || n × (recipient(16) || len(u16) || pairwise message)
Parsing is strict: every count and length is checked before it is used, and anything left over
or out of range is a typed error.
"""

from dataclasses import dataclass
from typing import List, Tuple

from . import limits, primitives
from .errors import ProtocolError, limit, malformed, truncated, unsupported
from .wire import Reader, b64decode_canonical, u16, u32

ENVELOPE_VERSION = 0x03
DM, GROUP, SKD = 0x01, 0x02, 0x03
CONTENT_TYPES = {"e2ee.dm": DM, "e2ee.group": GROUP, "e2ee.skd": SKD}
DM_KEY_LABEL = b"e2ee-dm-key-v1"
DM_AAD_LABEL = b"e2ee-dm-v1"
GROUP_AAD_LABEL = b"e2ee-group-aad-v2"
GROUP_SIG_LABEL = b"e2ee-group-sig-v2"
DM_ENTRY_TYPE = 0x01
GROUP_HEADER_LENGTH = 38
GROUP_NONCE_LENGTH = 12
SIGNATURE_LENGTH = 64

Entry = Tuple[bytes, bytes]  # (recipient device id, pairwise message)


# DM ------------------------------------------------------------------------------------------

def key_commit(payload_key: bytes) -> bytes:
    """SHA-256("e2ee-dm-key-v1" || K)."""
    return primitives.sha256(DM_KEY_LABEL + bytes(payload_key))


def dm_payload_aad(channel_id: bytes, sender_device_id: bytes) -> bytes:
    """"e2ee-dm-v1" || channel_id || sender_device_id."""
    return DM_AAD_LABEL + bytes(channel_id) + bytes(sender_device_id)


def seal_dm_payload(payload_key, payload_nonce, payload, channel_id, sender_device_id) -> bytes:
    """payload_ct."""
    return primitives.aead_seal(payload_key, payload_nonce, payload,
                                dm_payload_aad(channel_id, sender_device_id))


def dm_entry_plaintext(payload_key: bytes, payload_nonce: bytes, payload_ct: bytes) -> bytes:
    """0x01 || K || SHA-256(payload_nonce || payload_ct): what each recipient's entry encrypts."""
    return (bytes([DM_ENTRY_TYPE]) + bytes(payload_key)
            + primitives.sha256(bytes(payload_nonce) + bytes(payload_ct)))


def _entries(entries: List[Entry]) -> bytes:
    return u16(len(entries)) + b"".join(
        bytes(rid) + u16(len(message)) + bytes(message) for rid, message in entries)


def build_dm(sender_device_id, payload_nonce, payload_key, entries: List[Entry], payload_ct) -> bytes:
    """The DM envelope bytes."""
    return (bytes([ENVELOPE_VERSION, DM]) + bytes(sender_device_id) + bytes(payload_nonce)
            + key_commit(payload_key) + _entries(entries) + bytes(payload_ct))


@dataclass(frozen=True)
class DmEnvelope:
    """A parsed DM envelope."""
    sender_device_id: bytes
    payload_nonce: bytes
    key_commit: bytes
    entries: List[Entry]
    payload_ct: bytes


def _read_entries(reader: Reader, sender_device_id: bytes, where: str) -> List[Entry]:
    count = reader.u16()
    if not limits.RECIPIENTS_MIN <= count <= limits.RECIPIENTS_MAX:
        raise limit(where, limits.RECIPIENTS_MAX, count)
    entries, seen = [], set()
    for _ in range(count):
        recipient = reader.take(16)
        length = reader.u16()
        if length < limits.MIN_PAIRWISE_MESSAGE:
            raise limit("recipientEntry", limits.MIN_PAIRWISE_MESSAGE, length)
        message = reader.take(length)
        if message[0] not in (0x01, 0x02):
            raise unsupported("recipientEntry", message[0])
        if recipient == sender_device_id:
            raise ProtocolError("invalidRecipients", "entry addressed to the sending device")
        if recipient in seen:
            raise ProtocolError("invalidRecipients", "duplicate recipient")
        seen.add(recipient)
        entries.append((recipient, message))
    return entries


def _check_ciphertext_length(length: int, where: str) -> None:
    if length < limits.CIPHERTEXT_MIN:
        raise truncated(where, limits.CIPHERTEXT_MIN, length)
    if length > limits.CIPHERTEXT_MAX:
        raise limit(where, limits.CIPHERTEXT_MAX, length)


def _open_header(envelope: bytes, kind: int, where: str) -> Reader:
    reader = Reader(envelope, where)
    version = reader.byte()
    if version != ENVELOPE_VERSION:
        raise unsupported(where, version)
    actual = reader.byte()
    if actual != kind:
        raise ProtocolError("wrongEnvelopeType", f"type 0x{actual:02x}")
    return reader


def parse_dm(envelope: bytes) -> DmEnvelope:
    """Strictly parse a DM envelope."""
    reader = _open_header(envelope, DM, "dmEnvelope")
    sender = reader.take(16)
    nonce, commit = reader.take(12), reader.take(32)
    entries = _read_entries(reader, sender, "dmEnvelope")
    payload_ct = reader.rest()
    _check_ciphertext_length(len(payload_ct), "dmEnvelope")
    return DmEnvelope(sender, nonce, commit, entries, payload_ct)


def open_dm(envelope: DmEnvelope, channel_id: bytes, entry_plaintext: bytes) -> bytes:
    """A recipient with its decrypted entry checks hash, key commitment and AEAD → payload."""
    entry_plaintext = bytes(entry_plaintext)
    if len(entry_plaintext) != 65:
        raise malformed("pairwisePlaintext", "DM key entry must be 65 bytes")
    if entry_plaintext[0] != DM_ENTRY_TYPE:
        raise unsupported("pairwisePlaintext", entry_plaintext[0])
    payload_key, digest = entry_plaintext[1:33], entry_plaintext[33:]
    if digest != primitives.sha256(envelope.payload_nonce + envelope.payload_ct):
        raise malformed("recipientEntry", "payload hash mismatch")
    if key_commit(payload_key) != envelope.key_commit:
        raise ProtocolError("keyCommitMismatch")
    return primitives.aead_open(payload_key, envelope.payload_nonce, envelope.payload_ct,
                                dm_payload_aad(channel_id, envelope.sender_device_id))


# Group ---------------------------------------------------------------------------------------

def build_group(channel_id, sender_device_id, key_id, iteration, aes_key, nonce, signing_seed,
                payload):
    """→ (envelope, ct, sig); ``nonce`` is the message's 12 random bytes, carried in the header."""
    head = (bytes([ENVELOPE_VERSION, GROUP]) + bytes(sender_device_id) + u32(key_id) + u32(iteration)
            + bytes(nonce))
    ct = primitives.aead_seal(aes_key, nonce, payload, GROUP_AAD_LABEL + bytes(channel_id) + head)
    sig = primitives.ed25519_sign(signing_seed, GROUP_SIG_LABEL + bytes(channel_id) + head + ct)
    return head + ct + sig, ct, sig


@dataclass(frozen=True)
class GroupEnvelope:
    """A parsed group envelope."""
    sender_device_id: bytes
    key_id: int
    iteration: int
    nonce: bytes
    ciphertext: bytes
    signature: bytes
    header: bytes  # the 38 bytes before ct


def parse_group(envelope: bytes) -> GroupEnvelope:
    """Strictly parse a group envelope."""
    reader = _open_header(envelope, GROUP, "groupEnvelope")
    if len(envelope) < GROUP_HEADER_LENGTH:
        raise truncated("groupEnvelope", GROUP_HEADER_LENGTH + SIGNATURE_LENGTH + limits.CIPHERTEXT_MIN,
                        len(envelope))
    sender, key_id, iteration = reader.take(16), reader.u32(), reader.u32()
    nonce = reader.take(GROUP_NONCE_LENGTH)
    rest = reader.rest()
    if len(rest) < SIGNATURE_LENGTH + limits.CIPHERTEXT_MIN:
        raise truncated("groupEnvelope", GROUP_HEADER_LENGTH + SIGNATURE_LENGTH + limits.CIPHERTEXT_MIN,
                        len(envelope))
    ciphertext, signature = rest[:-SIGNATURE_LENGTH], rest[-SIGNATURE_LENGTH:]
    _check_ciphertext_length(len(ciphertext), "groupEnvelope")
    return GroupEnvelope(sender, key_id, iteration, nonce, ciphertext, signature,
                         bytes(envelope[:GROUP_HEADER_LENGTH]))


def open_group(envelope: GroupEnvelope, channel_id: bytes, signing_public: bytes,
               aes_key: bytes) -> bytes:
    """Verify the signature first, then the AEAD → payload."""
    signed = GROUP_SIG_LABEL + bytes(channel_id) + envelope.header + envelope.ciphertext
    if not primitives.ed25519_verify(signing_public, signed, envelope.signature):
        raise ProtocolError("badSignature", "group message")
    return primitives.aead_open(aes_key, envelope.nonce, envelope.ciphertext,
                                GROUP_AAD_LABEL + bytes(channel_id) + envelope.header)


# SKD -----------------------------------------------------------------------------------------

def build_skd(sender_device_id, entries: List[Entry]) -> bytes:
    """The SKD envelope bytes."""
    return bytes([ENVELOPE_VERSION, SKD]) + bytes(sender_device_id) + _entries(entries)


@dataclass(frozen=True)
class SkdEnvelope:
    """A parsed SKD envelope."""
    sender_device_id: bytes
    entries: List[Entry]


def parse_skd_envelope(envelope: bytes) -> SkdEnvelope:
    """Strictly parse an SKD envelope (no trailing bytes)."""
    reader = _open_header(envelope, SKD, "skdEnvelope")
    sender = reader.take(16)
    entries = _read_entries(reader, sender, "skdEnvelope")
    reader.finish()
    return SkdEnvelope(sender, entries)


# Content -------------------------------------------------------------------------------------

_PARSERS = {DM: parse_dm, GROUP: parse_group, SKD: parse_skd_envelope}


def parse_content(content: str, content_type: str):
    """``content`` (strict base64, length checked first) → the parsed envelope of
    ``content_type``; the type byte must match the content type."""
    if content_type not in CONTENT_TYPES:
        raise ProtocolError("wrongEnvelopeType", "unknown content type")
    envelope = b64decode_canonical(content)
    if len(envelope) < 2:
        raise truncated("content", 2, len(envelope))
    if envelope[0] != ENVELOPE_VERSION:
        raise unsupported("content", envelope[0])
    if envelope[1] not in _PARSERS:
        raise unsupported("content", envelope[1])
    return _PARSERS[CONTENT_TYPES[content_type]](envelope)
