"""X3DH (PROTOCOL.md §2): the shared secret SK and the session's associated data."""

from . import primitives
from .keys import Bundle, check_x25519_public

X3DH_INFO = b"e2ee-x3dh-v1"
_PREFIX = b"\xff" * 32


def _derive(dhs) -> bytes:
    """SK = HKDF(ZERO32, 0xFF*32 || DH1 || DH2 || DH3 [|| DH4], "e2ee-x3dh-v1", 32)."""
    return primitives.hkdf(primitives.ZERO32, _PREFIX + b"".join(dhs), X3DH_INFO, 32)


def initiator_secret(identity_private: bytes, ephemeral_private: bytes, bundle: Bundle) -> bytes:
    """Alice's SK from her IK and EK and Bob's verified bundle."""
    dhs = [primitives.x25519(identity_private, bundle.spk_public),
           primitives.x25519(ephemeral_private, bundle.identity.dh_public),
           primitives.x25519(ephemeral_private, bundle.spk_public)]
    if bundle.opk_id:
        dhs.append(primitives.x25519(ephemeral_private, bundle.opk_public))
    return _derive(dhs)


def responder_secret(identity_private: bytes, spk_private: bytes, opk_private: bytes,
                     initiator_dh_public: bytes, ephemeral_public: bytes) -> bytes:
    """Bob's SK from his IK, SPK and (optional, b"" = none) OPK and Alice's IK_pub and EK_pub."""
    check_x25519_public(initiator_dh_public, "identityBlob")
    check_x25519_public(ephemeral_public, "prekeyMessage")
    dhs = [primitives.x25519(spk_private, initiator_dh_public),
           primitives.x25519(identity_private, ephemeral_public),
           primitives.x25519(spk_private, ephemeral_public)]
    if opk_private:
        dhs.append(primitives.x25519(opk_private, ephemeral_public))
    return _derive(dhs)


def associated_data(initiator_blob: bytes, responder_blob: bytes) -> bytes:
    """AD = identity_blob(initiator) || identity_blob(responder), for the whole session."""
    return bytes(initiator_blob) + bytes(responder_blob)
