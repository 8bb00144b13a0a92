"""The primitives of PROTOCOL.md §0 over the ``cryptography`` package only.

X25519, Ed25519 (with libsodium's verification rules added via ``edwards``), HKDF-SHA256,
HMAC-SHA256, AES-256-GCM (12-byte nonce, 16-byte tag), SHA-256 and SHA-512.
"""

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from . import edwards
from .errors import ProtocolError

ZERO32 = bytes(32)
_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw


def x25519_public(private: bytes) -> bytes:
    """The X25519 public key of a 32-byte scalar (clamped as RFC 7748 says)."""
    return X25519PrivateKey.from_private_bytes(bytes(private)).public_key().public_bytes(*_RAW)


def x25519(private: bytes, public: bytes) -> bytes:
    """X25519(private, public); an all-zero output is a typed error (§0)."""
    try:
        shared = X25519PrivateKey.from_private_bytes(bytes(private)).exchange(
            X25519PublicKey.from_public_bytes(bytes(public)))
    except ValueError as error:  # OpenSSL refuses an all-zero shared secret
        raise ProtocolError("allZeroSharedSecret") from error
    if shared == ZERO32:
        raise ProtocolError("allZeroSharedSecret")
    return shared


def ed25519_public(seed: bytes) -> bytes:
    """The Ed25519 public key of a 32-byte seed."""
    return Ed25519PrivateKey.from_private_bytes(bytes(seed)).public_key().public_bytes(*_RAW)


def ed25519_sign(seed: bytes, message: bytes) -> bytes:
    """Deterministic Ed25519 signature (RFC 8032)."""
    return Ed25519PrivateKey.from_private_bytes(bytes(seed)).sign(bytes(message))


def ed25519_verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """Ed25519 verification with libsodium's ``crypto_sign_verify_detached`` rules:
    S < L, R not of small order, A canonical and not of small order, then the equation."""
    if len(public) != 32 or len(signature) != 64:
        return False
    if int.from_bytes(signature[32:], "little") >= edwards.L:
        return False
    if edwards.has_small_order(signature[:32]):
        return False
    if not edwards.is_valid_public_key(public):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(bytes(public)).verify(bytes(signature), bytes(message))
    except (InvalidSignature, ValueError):
        return False
    return True


def hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869); refuses lengths above 255 × 32 with ValueError."""
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=bytes(salt),
                info=bytes(info)).derive(bytes(ikm))


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    """HMAC-SHA256."""
    mac = hmac.HMAC(bytes(key), hashes.SHA256())
    mac.update(bytes(message))
    return mac.finalize()


def sha256(data: bytes) -> bytes:
    """SHA-256."""
    digest = hashes.Hash(hashes.SHA256())
    digest.update(bytes(data))
    return digest.finalize()


def sha512(data: bytes) -> bytes:
    """SHA-512."""
    digest = hashes.Hash(hashes.SHA512())
    digest.update(bytes(data))
    return digest.finalize()


def aead_seal(key: bytes, nonce: bytes, plaintext: bytes, aad: bytes) -> bytes:
    """AES-256-GCM: ciphertext followed by the 16-byte tag."""
    return AESGCM(bytes(key)).encrypt(bytes(nonce), bytes(plaintext), bytes(aad))


def aead_open(key: bytes, nonce: bytes, ciphertext: bytes, aad: bytes) -> bytes:
    """AES-256-GCM decryption; a bad tag is the typed ``badTag``."""
    if len(ciphertext) < 16:
        raise ProtocolError("badTag", "ciphertext shorter than the tag")
    try:
        return AESGCM(bytes(key)).decrypt(bytes(nonce), bytes(ciphertext), bytes(aad))
    except InvalidTag as error:
        raise ProtocolError("badTag") from error
