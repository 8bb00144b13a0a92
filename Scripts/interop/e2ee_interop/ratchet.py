"""One Double Ratchet state (PROTOCOL.md §3).

KDF_RK(rk, dh) = HKDF(salt = rk, ikm = dh, "e2ee-ratchet-v1", 64) → rk' || ck;
KDF_CK(ck): mk = HMAC(ck, 0x01), ck' = HMAC(ck, 0x02);
message key: HKDF(ZERO32, mk, "e2ee-msg-v2", 32) → AES key; the 12-byte nonce is random per
message and carried in the header;
header = ratchet_pub(32) || PN(u32) || N(u32) || nonce(12); AEAD AAD = AD || header;
normal message = 0x01 || header || ciphertext_with_tag.

``decrypt`` mutates the state it is called on: callers run it on a copy and keep the copy
only when it succeeds (``session.Device`` does), which is what makes processing atomic.
"""

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import limits, primitives
from .errors import ProtocolError, truncated, unsupported
from .keys import check_x25519_public
from .wire import Reader, u32

RATCHET_INFO = b"e2ee-ratchet-v1"
MESSAGE_INFO = b"e2ee-msg-v2"
NORMAL_VERSION = 0x01
NONCE_LENGTH = 12
HEADER_LENGTH = 52


def kdf_rk(root_key: bytes, dh_output: bytes):
    """KDF_RK → (new root key, chain key)."""
    out = primitives.hkdf(root_key, dh_output, RATCHET_INFO, 64)
    return out[:32], out[32:]


def kdf_ck(chain_key: bytes):
    """KDF_CK → (message key, next chain key)."""
    return primitives.hmac_sha256(chain_key, b"\x01"), primitives.hmac_sha256(chain_key, b"\x02")


def message_aead_key(message_key: bytes) -> bytes:
    """HKDF(ZERO32, mk, "e2ee-msg-v2", 32) → the AES-256 key."""
    return primitives.hkdf(primitives.ZERO32, message_key, MESSAGE_INFO, 32)


@dataclass(frozen=True)
class Header:
    """The 52-byte message header."""
    ratchet_public: bytes
    previous_count: int  # PN
    number: int          # N
    nonce: bytes         # 12 random bytes

    def encode(self) -> bytes:
        """ratchet_pub || PN || N || nonce."""
        return self.ratchet_public + u32(self.previous_count) + u32(self.number) + self.nonce


def parse_normal(message: bytes):
    """Strictly parse a normal message → (Header, ciphertext_with_tag)."""
    message = bytes(message)
    if len(message) < limits.MIN_PAIRWISE_MESSAGE:
        raise truncated("normalMessage", limits.MIN_PAIRWISE_MESSAGE, len(message))
    reader = Reader(message, "normalMessage")
    version = reader.byte()
    if version != NORMAL_VERSION:
        raise unsupported("normalMessage", version)
    header = Header(check_x25519_public(reader.take(32), "header"), reader.u32(), reader.u32(),
                    reader.take(NONCE_LENGTH))
    return header, reader.rest()


@dataclass
class RatchetState:
    """Signal's Double Ratchet state with this protocol's KDFs and limits."""
    associated_data: bytes
    root_key: bytes
    sending_private: bytes
    sending_public: bytes
    remote_public: Optional[bytes] = None
    sending_chain: Optional[bytes] = None
    receiving_chain: Optional[bytes] = None
    sent_count: int = 0       # Ns
    received_count: int = 0   # Nr
    previous_count: int = 0   # PN
    skipped: "OrderedDict[tuple, bytes]" = field(default_factory=OrderedDict)

    @classmethod
    def initiator(cls, shared_secret: bytes, associated_data: bytes, remote_spk_public: bytes,
                  ratchet_private: bytes) -> "RatchetState":
        """Alice: remote ratchet key SPK_B, a fresh sending ratchet key, sending chain ready."""
        root, chain = kdf_rk(shared_secret, primitives.x25519(ratchet_private, remote_spk_public))
        return cls(associated_data, root, ratchet_private, primitives.x25519_public(ratchet_private),
                   remote_public=remote_spk_public, sending_chain=chain)

    @classmethod
    def responder(cls, shared_secret: bytes, associated_data: bytes,
                  spk_private: bytes) -> "RatchetState":
        """Bob: the SPK pair is his ratchet key; no chains until he receives."""
        return cls(associated_data, shared_secret, spk_private, primitives.x25519_public(spk_private))

    def encrypt(self, plaintext: bytes, nonce: bytes) -> bytes:  # nonce: 12 random bytes
        """Encrypt with the sending chain under ``nonce`` (12 random bytes, drawn by the
        caller) → the normal message bytes."""
        if self.sending_chain is None:
            raise ProtocolError("unknownSession", "no sending chain before the first receive")
        if len(nonce) != NONCE_LENGTH:
            raise ProtocolError("malformed", "a ratchet nonce is 12 bytes")
        message_key, self.sending_chain = kdf_ck(self.sending_chain)
        header = Header(self.sending_public, self.previous_count, self.sent_count, bytes(nonce))
        self.sent_count += 1
        ciphertext = primitives.aead_seal(message_aead_key(message_key), header.nonce, plaintext,
                                          self.associated_data + header.encode())
        return bytes([NORMAL_VERSION]) + header.encode() + ciphertext

    def decrypt(self, message: bytes, new_ratchet_private: Callable[[], bytes]):
        """Decrypt a normal message → (plaintext, performed_dh_step).

        ``new_ratchet_private`` is called when the message carries a new remote ratchet key: it
        returns the private key of the receiver's next sending ratchet key pair."""
        header, ciphertext = parse_normal(message)
        slot = (header.ratchet_public, header.number)
        if slot in self.skipped:
            plaintext = self._open(self.skipped[slot], header, ciphertext)
            del self.skipped[slot]
            return plaintext, False
        stepped = header.ratchet_public != self.remote_public
        if stepped:
            old = 0 if self.receiving_chain is None else max(0, header.previous_count - self.received_count)
            self._check_skip(old)
            self._check_skip(header.number)
            if self.receiving_chain is not None:
                self._skip_until(header.previous_count)
            self._dh_step(header.ratchet_public, new_ratchet_private())
        else:
            if header.number < self.received_count:
                raise ProtocolError("duplicate", "message key already used")
            self._check_skip(header.number - self.received_count)
        self._skip_until(header.number)
        message_key, self.receiving_chain = kdf_ck(self.receiving_chain)
        self.received_count += 1
        return self._open(message_key, header, ciphertext), stepped

    def _open(self, message_key: bytes, header: Header, ciphertext: bytes) -> bytes:
        return primitives.aead_open(message_aead_key(message_key), header.nonce, ciphertext,
                                    self.associated_data + header.encode())

    @staticmethod
    def _check_skip(count: int) -> None:
        if count > limits.MAX_RATCHET_SKIP:
            raise ProtocolError("tooFarAhead", f"skip {count} > {limits.MAX_RATCHET_SKIP}")

    def _skip_until(self, until: int) -> None:
        """Store the message keys of the receiving chain up to (not including) ``until``."""
        while self.received_count < until:
            message_key, self.receiving_chain = kdf_ck(self.receiving_chain)
            self.skipped[(self.remote_public, self.received_count)] = message_key
            self.received_count += 1
            while len(self.skipped) > limits.MAX_STORED_SKIPPED_KEYS:
                self.skipped.popitem(last=False)  # oldest inserted first

    def _dh_step(self, remote_public: bytes, own_private: bytes) -> None:
        """Signal's DHRatchet: receiving chain from DH(old own, new remote), then a new own key
        pair and the sending chain from DH(new own, new remote)."""
        self.previous_count = self.sent_count
        self.sent_count = 0
        self.received_count = 0
        self.remote_public = remote_public
        self.root_key, self.receiving_chain = kdf_rk(
            self.root_key, primitives.x25519(self.sending_private, remote_public))
        self.sending_private = bytes(own_private)
        self.sending_public = primitives.x25519_public(own_private)
        self.root_key, self.sending_chain = kdf_rk(
            self.root_key, primitives.x25519(self.sending_private, remote_public))
