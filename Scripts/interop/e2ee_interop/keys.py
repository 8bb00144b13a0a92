"""Device keys and their published forms (PROTOCOL.md §0, §1, §10.3).

Received X25519 keys must be canonical and not low-order; signing keys must be valid points,
not of small order and in the prime-order subgroup (§0.8). The identity blob is
``0x01 || IK_pub || SIG_pub`` (65 bytes); a one-time prekey is ``0x01 || id(u32) || pub``
(37 bytes). The signed prekey record (text 1.3) is ``0x02 || spk_id(u32) || SPK_pub || cert``
(141 bytes), ``cert = UMK_pub || epoch(u32) || not_after(u32) || cert_sig`` (104 bytes, all zero
for no certificate); the record's signature is Ed25519(SIG, ``"e2ee-spk-v2" || record``), the
certificate's is Ed25519(UMK, ``"e2ee-device-cert-v1" || user_id || device_id || IK_pub ||
SIG_pub || UMK_pub || epoch || not_after``).
"""

from dataclasses import dataclass
from typing import Optional

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
SPK_SIGNATURE_LABEL = b"e2ee-spk-v2"
V1_SPK_SIGNATURE_LABEL = b"e2ee-spk-v1"  # text 1.2's label, kept only to build refused samples
CERTIFICATE_LABEL = b"e2ee-device-cert-v1"
IDENTITY_BLOB_LENGTH = 65
PREKEY_FORM_LENGTH = 37
FORM_VERSION = 0x01
RECORD_VERSION = 0x02
CERTIFICATE_LENGTH = 104
RECORD_LENGTH = 1 + 4 + 32 + CERTIFICATE_LENGTH
ZERO_CERTIFICATE = bytes(CERTIFICATE_LENGTH)
EPOCH_MIN, EPOCH_MAX = 1, 2**32 - 2


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
    """A received signing key (§0.8): decodes to a point, y < p, not of small order, in the
    prime-order subgroup."""
    key = bytes(key)
    if not edwards.is_valid_public_key(key) or not edwards.in_prime_order_subgroup(key):
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
    """The 37-byte published form of a one-time prekey (and text 1.2's signed prekey)."""
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


@dataclass(frozen=True)
class Certificate:
    """A parsed non-zero device certificate (its signature not yet checked)."""
    user_key: bytes
    epoch: int
    not_after: int
    signature: bytes

    @property
    def encoded(self) -> bytes:
        """The 104 bytes."""
        return self.user_key + u32(self.epoch) + u32(self.not_after) + self.signature


def certificate_message(user_id: bytes, device_id: bytes, identity: bytes, user_key: bytes,
                        epoch: int, not_after: int) -> bytes:
    """What the user key signs; ``identity`` is the 65-byte blob (its two keys are signed),
    ids are 16 raw bytes."""
    blob = bytes(identity)
    return (CERTIFICATE_LABEL + bytes(user_id) + bytes(device_id) + blob[1:33] + blob[33:65]
            + bytes(user_key) + u32(epoch) + u32(not_after))


def issue_certificate(user_key_seed: bytes, user_id: bytes, device_id: bytes, identity: bytes,
                      epoch: int, not_after: int) -> bytes:
    """The 104-byte certificate of (user, device, blob) signed by the user key's seed; an epoch
    outside [1, 2^32 - 2] is refused (``malformed``)."""
    if not EPOCH_MIN <= epoch <= EPOCH_MAX:
        raise malformed("certificate", f"epoch {epoch} out of range")
    user_key = primitives.ed25519_public(user_key_seed)
    signature = primitives.ed25519_sign(
        user_key_seed, certificate_message(user_id, device_id, identity, user_key, epoch, not_after))
    return user_key + u32(epoch) + u32(not_after) + signature


def parse_certificate(cert: bytes) -> Optional[Certificate]:
    """Strictly parse 104 bytes: None for the zero certificate; otherwise the user key must
    pass §0.8 and the epoch be in [1, 2^32 - 2] (however many other bytes are zero)."""
    cert = bytes(cert)
    if len(cert) < CERTIFICATE_LENGTH:
        raise truncated("certificate", CERTIFICATE_LENGTH, len(cert))
    if len(cert) > CERTIFICATE_LENGTH:
        raise trailing("certificate", len(cert) - CERTIFICATE_LENGTH)
    if cert == ZERO_CERTIFICATE:
        return None
    user_key = check_ed25519_public(cert[:32], "certificate")
    epoch = int.from_bytes(cert[32:36], "big")
    if not EPOCH_MIN <= epoch <= EPOCH_MAX:
        raise malformed("certificate", f"epoch {epoch} out of range")
    return Certificate(user_key, epoch, int.from_bytes(cert[36:40], "big"), cert[40:])


def certificate_verifies(cert: Optional[Certificate], user_id: bytes, device_id: bytes,
                         identity: bytes) -> bool:
    """Whether ``cert_sig`` holds for this user, device and identity blob (never for None)."""
    if cert is None:
        return False
    message = certificate_message(user_id, device_id, identity, cert.user_key, cert.epoch,
                                  cert.not_after)
    return primitives.ed25519_verify(cert.user_key, message, cert.signature)


def signed_prekey_record(spk_id: int, spk_private: bytes, cert: bytes = ZERO_CERTIFICATE) -> bytes:
    """The 141-byte record of a signed prekey carrying ``cert`` (zero: no certificate)."""
    return signed_prekey_record_of_public(spk_id, primitives.x25519_public(spk_private), cert)


def signed_prekey_record_of_public(spk_id: int, spk_public: bytes,
                                   cert: bytes = ZERO_CERTIFICATE) -> bytes:
    """The record from the public key (for devices whose SPK private key is not at hand)."""
    return bytes([RECORD_VERSION]) + u32(spk_id) + bytes(spk_public) + bytes(cert)


def parse_signed_prekey_record(record: bytes):
    """Strictly parse a record: version first, then the length, then the fields. Returns
    ``(spk_id, spk_public, certificate or None)``."""
    record = bytes(record)
    if not record:
        raise truncated("signedPrekey", 1, 0)
    if record[0] != RECORD_VERSION:
        raise unsupported("signedPrekey", record[0])
    if len(record) < RECORD_LENGTH:
        raise truncated("signedPrekey", RECORD_LENGTH, len(record))
    if len(record) > RECORD_LENGTH:
        raise trailing("signedPrekey", len(record) - RECORD_LENGTH)
    spk_id = int.from_bytes(record[1:5], "big")
    if spk_id == 0:
        raise malformed("signedPrekey", "spk_id 0")
    spk_public = check_x25519_public(record[5:37], "signedPrekey")
    return spk_id, spk_public, parse_certificate(record[37:])


def sign_signed_prekey(signing_seed: bytes, record: bytes) -> bytes:
    """``signed_pre_key_signature``: Ed25519(SIG, "e2ee-spk-v2" || record)."""
    return primitives.ed25519_sign(signing_seed, SPK_SIGNATURE_LABEL + bytes(record))


@dataclass(frozen=True)
class Bundle:
    """A verified prekey bundle, as the initiator uses it."""
    identity: IdentityBlob
    spk_id: int
    spk_public: bytes
    opk_id: int          # 0 = none
    opk_public: bytes    # b"" when none
    certificate: Optional[Certificate] = None  # None: the zero certificate

    def certified_for(self, user_id: bytes, device_id: bytes) -> bool:
        """§10.3: whether the record's certificate verifies for this user and device (and the
        bundle's own identity blob); False leaves the device uncertified, the bundle usable."""
        return certificate_verifies(self.certificate, user_id, device_id, self.identity.encoded)


def verify_bundle(identity: bytes, record: bytes, spk_signature: bytes,
                  opk_form: bytes = b"") -> Bundle:
    """§1.5, §10.3, §2 step 1: parse every published value (the record strictly, a non-zero
    certificate's user key and epoch included) and verify the record's signature."""
    blob = parse_identity_blob(identity)
    spk_id, spk_public, cert = parse_signed_prekey_record(record)
    if len(spk_signature) != 64 or not primitives.ed25519_verify(
            blob.signing_public, SPK_SIGNATURE_LABEL + bytes(record), spk_signature):
        raise ProtocolError("badSignature", "signed prekey")
    opk_id, opk_public = 0, b""
    if opk_form:
        opk_id, opk_public = parse_prekey_form(opk_form, "oneTimePrekey")
    return Bundle(blob, spk_id, spk_public, opk_id, opk_public, cert)
