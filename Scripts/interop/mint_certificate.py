#!/usr/bin/env python3
"""Mint a device certificate (protocol text 1.3, PROTOCOL.md §1.4) and, optionally, a whole
signed prekey record carrying it — for tests that need certificates before any device can make
one, and for devices the development server injects.

Usage:
  mint_certificate.py --identity-blob HEX --user-id UUID --device-id UUID
                      --user-key-seed HEX --epoch N --not-after N
                      [--spk-id N (--spk-public HEX | --spk-private HEX) --signing-seed HEX]

Prints one JSON object: ``certificate`` (104 bytes, hex) and ``user_key`` (UMK_pub, hex); with
the record options also ``record`` (141 bytes, hex), ``signed_pre_key`` and
``signed_pre_key_signature`` (base64, as ``POST /keys/upload`` takes them). The signing seed must
be the one of the blob's SIG_pub: a device signs only its own record. Every value is checked as
a contact would check it; a bad input exits 2 with a message on standard error. Seeds given here
are test keys: never pass a real user key.
"""

import argparse
import json
import sys

from e2ee_interop import keys, primitives
from e2ee_interop.errors import ProtocolError
from e2ee_interop.wire import b64encode, uuid_bytes


def _hex(text: str, length: int, name: str) -> bytes:
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise SystemExit(f"mint_certificate: {name} is not hex") from None
    if len(value) != length:
        raise SystemExit(f"mint_certificate: {name} is {len(value)} bytes, expected {length}")
    return value


def mint(args) -> dict:
    """The certificate (and record) the arguments describe."""
    blob = _hex(args.identity_blob, keys.IDENTITY_BLOB_LENGTH, "--identity-blob")
    keys.parse_identity_blob(blob)
    seed = _hex(args.user_key_seed, 32, "--user-key-seed")
    cert = keys.issue_certificate(seed, uuid_bytes(args.user_id), uuid_bytes(args.device_id), blob,
                                  args.epoch, args.not_after)
    out = {"certificate": cert.hex(), "user_key": cert[:32].hex()}
    record_options = (args.spk_id, args.spk_public or args.spk_private, args.signing_seed)
    if not any(record_options):
        return out
    if not all(record_options) or (args.spk_public and args.spk_private):
        raise SystemExit("mint_certificate: a record needs --spk-id, one of --spk-public and "
                         "--spk-private, and --signing-seed")
    signing_seed = _hex(args.signing_seed, 32, "--signing-seed")
    if primitives.ed25519_public(signing_seed) != blob[33:65]:
        raise SystemExit("mint_certificate: --signing-seed is not the seed of the blob's SIG_pub")
    if not 1 <= args.spk_id <= 2**32 - 1:
        raise SystemExit("mint_certificate: --spk-id must be in 1..4294967295")
    spk_public = (_hex(args.spk_public, 32, "--spk-public") if args.spk_public
                  else primitives.x25519_public(_hex(args.spk_private, 32, "--spk-private")))
    record = keys.signed_prekey_record_of_public(args.spk_id, spk_public, cert)
    signature = keys.sign_signed_prekey(signing_seed, record)
    keys.verify_bundle(blob, record, signature)  # what a contact checks
    out.update(record=record.hex(), signed_pre_key=b64encode(record),
               signed_pre_key_signature=b64encode(signature))
    return out


def main(argv=None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--identity-blob", required=True, help="the device's 65-byte identity blob, hex")
    parser.add_argument("--user-id", required=True, help="the user, lower-case UUID text")
    parser.add_argument("--device-id", required=True, help="the device, lower-case UUID text")
    parser.add_argument("--user-key-seed", required=True, help="the user key's Ed25519 seed, hex")
    parser.add_argument("--epoch", type=int, required=True, help="1..4294967294")
    parser.add_argument("--not-after", type=int, required=True, help="unix seconds, 0..4294967295")
    parser.add_argument("--spk-id", type=int, help="the record's spk_id")
    parser.add_argument("--spk-public", help="the record's SPK_pub, hex")
    parser.add_argument("--spk-private", help="or the SPK scalar, hex")
    parser.add_argument("--signing-seed", help="the device's SIG seed, hex (signs the record)")
    args = parser.parse_args(argv)
    if not 0 <= args.not_after <= 2**32 - 1:
        print("mint_certificate: --not-after must be in 0..4294967295", file=sys.stderr)
        return 2
    try:
        result = mint(args)
    except ProtocolError as error:
        print(f"mint_certificate: refused: {error}", file=sys.stderr)
        return 2
    except SystemExit as error:
        print(error, file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
