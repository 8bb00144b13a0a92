"""A device's pairwise sessions with one remote device (PROTOCOL.md §2, §3).

Handles the two message forms (normal ``0x01 …`` and prekey ``0x02 || identity_blob_A ||
EK_A_pub || spk_id || opk_id || normal``), the responder's base-key lookup, accepted-``EK_A``
replay set and identity check, the current and up to five archived sessions, and "Alice sends
prekey messages until she has decrypted something". ``receive`` is atomic: it works on a deep
copy of the state and commits only on success.
"""

import copy
import os
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Set

from . import keys, limits, primitives, x3dh
from .errors import ProtocolError, truncated, unsupported
from .ratchet import RatchetState
from .wire import Reader, u32

PREKEY_VERSION = 0x02
PREKEY_PREFIX_LENGTH = 1 + 65 + 32 + 4 + 4


@dataclass
class Session:
    """One pairwise session."""
    ratchet: RatchetState
    peer_blob: bytes
    base_key: Optional[bytes] = None   # EK_A, for a session accepted as responder
    spk_id: int = 0
    opk_id: int = 0
    prekey_prefix: bytes = b""         # initiator: identity_blob_A || EK_A || spk_id || opk_id
    has_decrypted: bool = False


@dataclass
class DeviceState:
    """Everything ``receive`` may change."""
    current: Optional[Session] = None
    archived: List[Session] = field(default_factory=list)
    accepted_ephemerals: Set[bytes] = field(default_factory=set)
    pinned_peer: Optional[bytes] = None


def parse_prekey(message: bytes):
    """Strictly parse a prekey message → (identity blob, EK_A, spk_id, opk_id, normal)."""
    message = bytes(message)
    minimum = PREKEY_PREFIX_LENGTH + limits.MIN_PAIRWISE_MESSAGE
    if len(message) < minimum:
        raise truncated("prekeyMessage", minimum, len(message))
    reader = Reader(message, "prekeyMessage")
    version = reader.byte()
    if version != PREKEY_VERSION:
        raise unsupported("prekeyMessage", version)
    blob = reader.take(65)
    keys.parse_identity_blob(blob)
    ephemeral = keys.check_x25519_public(reader.take(32), "prekeyMessage")
    return blob, ephemeral, reader.u32(), reader.u32(), reader.rest()


class Device:
    """One device's side of a conversation with one remote device."""

    def __init__(self, identity_private: bytes, signing_seed: bytes,
                 signed_prekeys: Optional[Dict[int, bytes]] = None,
                 one_time_prekeys: Optional[Dict[int, bytes]] = None,
                 listed_peer_blob: Optional[bytes] = None):
        self.identity_private = bytes(identity_private)
        self.identity_blob = keys.identity_blob(identity_private, signing_seed)
        self.signed_prekeys = dict(signed_prekeys or {})
        self.one_time_prekeys = dict(one_time_prekeys or {})  # kept through the grace window
        self.listed_peer_blob = listed_peer_blob              # GET /keys/{U}/bundles, an input
        self.state = DeviceState()

    # Initiator -----------------------------------------------------------------------------

    def start_session(self, bundle: keys.Bundle, ephemeral_private: bytes,
                      ratchet_private: bytes) -> bytes:
        """X3DH as initiator with a verified bundle; returns SK. The session becomes current."""
        secret = x3dh.initiator_secret(self.identity_private, ephemeral_private, bundle)
        ad = x3dh.associated_data(self.identity_blob, bundle.identity.encoded)
        prefix = (self.identity_blob + primitives.x25519_public(ephemeral_private)
                  + u32(bundle.spk_id) + u32(bundle.opk_id))
        session = Session(RatchetState.initiator(secret, ad, bundle.spk_public, ratchet_private),
                          bundle.identity.encoded, spk_id=bundle.spk_id, opk_id=bundle.opk_id,
                          prekey_prefix=prefix)
        self.state.pinned_peer = bundle.identity.encoded
        self._install(self.state, session)
        return secret

    # Sending ---------------------------------------------------------------------------------

    def send(self, plaintext: bytes, nonce: Optional[bytes] = None) -> bytes:
        """Encrypt with the current session under ``nonce`` (12 random bytes from the system's
        generator unless a vector supplies them): prekey form until something was decrypted."""
        session = self.state.current
        if session is None:
            raise ProtocolError("unknownSession", "no session")
        normal = session.ratchet.encrypt(plaintext, os.urandom(12) if nonce is None else nonce)
        if session.prekey_prefix and not session.has_decrypted:
            return bytes([PREKEY_VERSION]) + session.prekey_prefix + normal
        return normal

    # Receiving -------------------------------------------------------------------------------

    def receive(self, message: bytes, new_ratchet_private: Callable[[], bytes]):
        """Decrypt a pairwise message atomically → (plaintext, performed_dh_step)."""
        message = bytes(message)
        if not message:
            raise truncated("pairwise", 1, 0)
        work = copy.deepcopy(self.state)
        if message[0] == PREKEY_VERSION:
            result = self._receive_prekey(work, message, new_ratchet_private)
        elif message[0] == 0x01:
            result = self._receive_normal(work, message, new_ratchet_private)
        else:
            raise unsupported("pairwise", message[0])
        self.state = work
        return result

    def _receive_prekey(self, work: DeviceState, message: bytes, new_ratchet_private):
        blob, ephemeral, spk_id, opk_id, normal = parse_prekey(message)
        for session in self._sessions(work):
            if session.base_key == ephemeral:  # §2 step 1: the normal case
                if (session.peer_blob, session.spk_id, session.opk_id) != (blob, spk_id, opk_id):
                    raise ProtocolError("identityMismatch", "prekey fields differ from the session's")
                return self._decrypt_in(work, session, normal, new_ratchet_private)
        if ephemeral in work.accepted_ephemerals:
            raise ProtocolError("replay", "EK_A already accepted")
        expected = work.pinned_peer if work.pinned_peer is not None else self.listed_peer_blob
        if expected is None or blob != expected:
            raise ProtocolError("identityMismatch")
        if spk_id not in self.signed_prekeys:
            raise ProtocolError("unknownPrekey", "signed prekey")
        if opk_id and opk_id not in self.one_time_prekeys:
            raise ProtocolError("unknownPrekey", "one-time prekey")
        peer = keys.parse_identity_blob(blob)
        spk_private = self.signed_prekeys[spk_id]
        secret = x3dh.responder_secret(self.identity_private, spk_private,
                                       self.one_time_prekeys.get(opk_id, b"") if opk_id else b"",
                                       peer.dh_public, ephemeral)
        ad = x3dh.associated_data(blob, self.identity_blob)
        session = Session(RatchetState.responder(secret, ad, spk_private), blob,
                          base_key=ephemeral, spk_id=spk_id, opk_id=opk_id)
        plaintext, stepped = session.ratchet.decrypt(normal, new_ratchet_private)
        session.has_decrypted = True
        work.accepted_ephemerals.add(ephemeral)
        work.pinned_peer = blob
        self._install(work, session)
        return plaintext, stepped

    def _receive_normal(self, work: DeviceState, message: bytes, new_ratchet_private):
        sessions = self._sessions(work)
        if not sessions:
            raise ProtocolError("unknownSession")
        first_error = None
        for session in sessions:
            trial = copy.deepcopy(session)
            try:
                result = trial.ratchet.decrypt(message, new_ratchet_private)
            except ProtocolError as error:
                first_error = first_error or error
                continue
            trial.has_decrypted = True
            self._promote(work, session, trial)
            return result
        raise first_error

    def _decrypt_in(self, work: DeviceState, session: Session, normal: bytes, new_ratchet_private):
        trial = copy.deepcopy(session)
        result = trial.ratchet.decrypt(normal, new_ratchet_private)
        trial.has_decrypted = True
        self._promote(work, session, trial)
        return result

    @staticmethod
    def _sessions(work: DeviceState) -> List[Session]:
        return ([work.current] if work.current else []) + list(work.archived)

    @staticmethod
    def _install(work: DeviceState, session: Session) -> None:
        """A new session becomes current; the old current is archived first (at most five)."""
        if work.current is not None:
            work.archived.insert(0, work.current)
            del work.archived[limits.MAX_ARCHIVED_SESSIONS:]
        work.current = session

    @staticmethod
    def _promote(work: DeviceState, old: Session, updated: Session) -> None:
        """The session that decrypted becomes current (archived list: most recent first)."""
        if work.current is old:
            work.current = updated
            return
        work.archived = [s for s in work.archived if s is not old]
        Device._install(work, updated)
