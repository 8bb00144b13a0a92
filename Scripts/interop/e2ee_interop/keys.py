"""Device keys and their published forms (PROTOCOL.md §0, §1).

Received X25519 keys must be canonical and not low-order; signing keys must be valid points
not of small order. The identity blob is ``0x01 || IK_pub || SIG_pub`` (65 bytes); a signed or
one-time prekey is ``0x01 || id(u32) || pub`` (37 bytes); the SPK signature is
Ed25519(SIG, ``"e2ee-spk-v1" || form``).
"""

from dataclasses import dataclass

from . import edwards, primitives
from .errors import ProtocolError, invalid_key, malformed, trailing, truncated, unsupported
from .wire import u32

_P = 2**255 - 19
LOW_ORDER_X25519 = frozenset(
    (value % 2**256).to_bytes(32, "little") for value in (
        0, 1, _P - 1,
        325606250916557431795983626356110631294008115727848805560023387167927233504,
        39382357235489614581723060781553021112529911719440698176882885853963445705823,
    ))
SPK_SIGNATURE_LABEL = b"e2ee-spk-v1"
IDENTITY_BLOB_LENGTH = 65
PREKEY_FORM_LENGTH = 37
FORM_VERSION = 0x01


def check_x25519_public(key: bytes, where: str) -> bytes:
    """A received X25519 key: 32 bytes, bit 255 clear, value < p, not a low-order point."""
    key = bytes(key)
    if len(key) != 32:
        raise invalid_key(where)
    value = int.from_bytes(key, "little")
    if value >> 255 or value >= _P or key in LOW_ORDER_X25519:
        raise invalid_key(where)
    return key


def check_ed25519_public(key: bytes, where: str) -> bytes:
    """A received signing key: decodes to a point, y < p, not of small order."""
    key = bytes(key)
    if not edwards.is_valid_public_key(key):
        raise invalid_key(where)
    return key


@dataclass(frozen=True)
class IdentityBlob:
    """A parsed identity blob."""
    dh_public: bytes
    signing_public: bytes

    @property
    def encoded(self) -> bytes:
        """The 65-byte published form."""
        return bytes([FORM_VERSION]) + self.dh_public + self.signing_public


def identity_blob(identity_private: bytes, signing_seed: bytes) -> bytes:
    """The identity blob of a device's own keys."""
    return (bytes([FORM_VERSION]) + primitives.x25519_public(identity_private)
            + primitives.ed25519_public(signing_seed))


def parse_identity_blob(blob: bytes) -> IdentityBlob:
    """Strictly parse a received identity blob (length, version, both keys)."""
    blob = bytes(blob)
    if len(blob) < IDENTITY_BLOB_LENGTH:
        raise truncated("identityBlob", IDENTITY_BLOB_LENGTH, len(blob))
    if len(blob) > IDENTITY_BLOB_LENGTH:
        raise trailing("identityBlob", len(blob) - IDENTITY_BLOB_LENGTH)
    if blob[0] != FORM_VERSION:
        raise unsupported("identityBlob", blob[0])
    return IdentityBlob(check_x25519_public(blob[1:33], "identityBlob"),
                        check_ed25519_public(blob[33:65], "identityBlob"))


def prekey_form(key_id: int, private: bytes) -> bytes:
    """The 37-byte published form of a signed or one-time prekey."""
    return bytes([FORM_VERSION]) + u32(key_id) + primitives.x25519_public(private)


def parse_prekey_form(form: bytes, where: str):
    """Strictly parse a prekey form: returns ``(key_id, public)``; id 0 is refused."""
    form = bytes(form)
    if len(form) < PREKEY_FORM_LENGTH:
        raise truncated(where, PREKEY_FORM_LENGTH, len(form))
    if len(form) > PREKEY_FORM_LENGTH:
        raise trailing(where, len(form) - PREKEY_FORM_LENGTH)
    if form[0] != FORM_VERSION:
        raise unsupported(where, form[0])
    key_id = int.from_bytes(form[1:5], "big")
    if key_id == 0:
        raise malformed(where, "prekey id 0")
    return key_id, check_x25519_public(form[5:], where)


def sign_signed_prekey(signing_seed: bytes, spk_form: bytes) -> bytes:
    """``signed_pre_key_signature``: Ed25519(SIG, "e2ee-spk-v1" || form)."""
    return primitives.ed25519_sign(signing_seed, SPK_SIGNATURE_LABEL + bytes(spk_form))


@dataclass(frozen=True)
class Bundle:
    """A verified prekey bundle, as the initiator uses it."""
    identity: IdentityBlob
    spk_id: int
    spk_public: bytes
    opk_id: int          # 0 = none
    opk_public: bytes    # b"" when none


def verify_bundle(identity: bytes, spk_form: bytes, spk_signature: bytes,
                  opk_form: bytes = b"") -> Bundle:
    """§1/§2 step 1: parse every published value and verify the SPK signature."""
    blob = parse_identity_blob(identity)
    spk_id, spk_public = parse_prekey_form(spk_form, "signedPrekey")
    if len(spk_signature) != 64 or not primitives.ed25519_verify(
            blob.signing_public, SPK_SIGNATURE_LABEL + bytes(spk_form), spk_signature):
        raise ProtocolError("badSignature", "signed prekey")
    opk_id, opk_public = 0, b""
    if opk_form:
        opk_id, opk_public = parse_prekey_form(opk_form, "oneTimePrekey")
    return Bundle(blob, spk_id, spk_public, opk_id, opk_public)
