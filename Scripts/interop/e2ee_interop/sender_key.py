"""Sender keys for groups (PROTOCOL.md §4): the chain and the SKD plaintext.

mk_i = HMAC(CK_i, 0x01), CK_{i+1} = HMAC(CK_i, 0x02), AES key =
HKDF(ZERO32, mk_i, "e2ee-group-msg-v2", 32); the nonce is random per message and travels in the
envelope. SKD plaintext = 0x02 || channel_id(16) || key_id(u32)
|| iteration(u32) || CK_iteration(32) || SK_sig_pub(32).
"""

from dataclasses import dataclass

from . import limits, primitives
from .errors import ProtocolError, trailing, truncated, unsupported
from .keys import check_ed25519_public
from .wire import Reader, u32

GROUP_INFO = b"e2ee-group-msg-v2"
SKD_TYPE = 0x02
SKD_BODY_LENGTH = 88


def chain_step(chain_key: bytes):
    """→ (mk_i, CK_{i+1})."""
    return primitives.hmac_sha256(chain_key, b"\x01"), primitives.hmac_sha256(chain_key, b"\x02")


def message_aead_key(message_key: bytes) -> bytes:
    """HKDF(ZERO32, mk_i, "e2ee-group-msg-v2", 32) → the AES-256 key."""
    return primitives.hkdf(primitives.ZERO32, message_key, GROUP_INFO, 32)


def derive(chain_key: bytes, next_iteration: int, iteration: int):
    """A receiver with CK at ``next_iteration`` derives iteration ``iteration`` →
    (mk, CK_{iteration+1}); a jump above 2000 or a step backwards is refused."""
    jump = iteration - next_iteration
    if jump < 0:
        raise ProtocolError("tooOld", "iteration behind the chain")
    if jump > limits.MAX_SENDER_KEY_JUMP:
        raise ProtocolError("tooFarAhead", f"jump {jump} > {limits.MAX_SENDER_KEY_JUMP}")
    for _ in range(jump):
        _, chain_key = chain_step(chain_key)
    return chain_step(chain_key)


@dataclass(frozen=True)
class Skd:
    """A parsed sender key distribution."""
    channel_id: bytes
    key_id: int
    iteration: int
    chain_key: bytes
    signing_public: bytes


def encode_skd(channel_id: bytes, key_id: int, iteration: int, chain_key: bytes,
               signing_public: bytes) -> bytes:
    """The SKD pairwise plaintext, type byte included (89 bytes)."""
    return (bytes([SKD_TYPE]) + bytes(channel_id) + u32(key_id) + u32(iteration)
            + bytes(chain_key) + bytes(signing_public))


def parse_skd(plaintext: bytes, expected_channel: bytes) -> Skd:
    """Strictly parse an SKD plaintext posted in ``expected_channel``."""
    reader = Reader(plaintext, "skdPlaintext")
    if not plaintext:
        raise truncated("skdPlaintext", 1 + SKD_BODY_LENGTH, 0)
    kind = reader.byte()
    if kind != SKD_TYPE:
        raise unsupported("pairwisePlaintext", kind)
    if reader.remaining < SKD_BODY_LENGTH:
        raise truncated("skdPlaintext", 1 + SKD_BODY_LENGTH, len(plaintext))
    skd = Skd(reader.take(16), reader.u32(), reader.u32(), reader.take(32),
              check_ed25519_public(reader.take(32), "skdPlaintext"))
    if reader.remaining:
        raise trailing("skdPlaintext", reader.remaining)
    if skd.channel_id != bytes(expected_channel):
        raise ProtocolError("channelMismatch")
    return skd
