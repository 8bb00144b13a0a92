"""E2EECore protocol (PROTOCOL.md v1) in Python on ``cryptography`` — the one import for users.

The implementation lives in small modules under ``e2ee_interop/`` (see its package docstring);
this module re-exports the public entry points so scripts can ``import e2ee_protocol``.
"""

from e2ee_interop.envelopes import (build_dm, build_group, build_skd, dm_entry_plaintext,  # noqa: F401
                                    key_commit, open_dm, open_group, parse_content, parse_dm,
                                    parse_group, parse_skd_envelope, seal_dm_payload)
from e2ee_interop.errors import ProtocolError  # noqa: F401
from e2ee_interop.keys import (certificate_verifies, check_ed25519_public,  # noqa: F401
                               check_x25519_public, identity_blob, issue_certificate,
                               parse_certificate, parse_identity_blob, parse_prekey_form,
                               parse_signed_prekey_record, prekey_form, sign_signed_prekey,
                               signed_prekey_record, verify_bundle)
from e2ee_interop.payload import encode_payload, parse_payload  # noqa: F401
from e2ee_interop.primitives import (aead_open, aead_seal, ed25519_public, ed25519_sign,  # noqa: F401
                                     ed25519_verify, hkdf, hmac_sha256, sha256, sha512, x25519,
                                     x25519_public)
from e2ee_interop.ratchet import RatchetState, kdf_ck, kdf_rk, message_aead_key  # noqa: F401
from e2ee_interop.safety_number import fingerprint, safety_number  # noqa: F401
from e2ee_interop.sender_key import chain_step, derive, encode_skd, parse_skd  # noqa: F401
from e2ee_interop.session import Device  # noqa: F401
from e2ee_interop.wire import b64decode_canonical, b64encode, uuid_bytes, uuid_text  # noqa: F401
from e2ee_interop.x3dh import associated_data, initiator_secret, responder_secret  # noqa: F401
