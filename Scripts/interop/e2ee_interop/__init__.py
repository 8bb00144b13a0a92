"""An independent Python implementation of the E2EECore wire protocol (PROTOCOL.md, version 1).

It exists to recompute the protocol test vectors in ``TestVectors/protocol/`` byte for byte.
Every primitive comes from the ``cryptography`` package (OpenSSL), never from libsodium, so
agreement with the Swift core (which uses libsodium) is evidence that both implement the
specification rather than share a bug. Modules, one job each:

``errors``        typed protocol errors (names mirror the Swift ``ProtocolError`` cases)
``wire``          big-endian integers, a bounds-checked reader, UUIDs, canonical base64
``primitives``    X25519, Ed25519, HKDF, HMAC, AES-256-GCM, SHA-2 over ``cryptography``
``edwards``       pure-integer edwards25519 point checks that give libsodium's verify semantics
``keys``          received-key checks, identity blobs, prekey forms, bundle verification
``x3dh``          the X3DH shared secret and associated data
``ratchet``       one Double Ratchet state (KDF_RK, KDF_CK, skipped keys, limits)
``session``       a device's pairwise sessions: prekey/normal messages, archive, replay set
``sender_key``    the sender-key chain and SKD plaintext
``envelopes``     DM, group and SKD envelopes: building and strict parsing
``link``          linking (text 1.3): codes, primary_sig, link plaintexts and envelopes, transfer records
``payload``       the strict payload parser and canonical encoder
``safety_number`` safety-number fingerprints
"""
