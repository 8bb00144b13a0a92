"""X3DH samples: valid setups and altered bundles a correct initiator refuses."""

from e2ee_interop import keys, primitives, x3dh
from e2ee_interop.checks.x3dh import initiate

from .common import ED25519_IDENTITY, ORDER8_X25519, P, flip, refused_as, secret


def x3dh_inputs(prefix: str, opk_id: int) -> dict:
    """The private inputs of one X3DH setup."""
    return {
        "initiatorIdentityPrivate": secret(prefix + "/alice/ik").hex(),
        "initiatorSigningSeed": secret(prefix + "/alice/sig").hex(),
        "responderIdentityPrivate": secret(prefix + "/bob/ik").hex(),
        "responderSigningSeed": secret(prefix + "/bob/sig").hex(),
        "signedPrekeyId": int.from_bytes(secret(prefix + "/bob/spkid")[:4], "big") | 1,
        "signedPrekeyPrivate": secret(prefix + "/bob/spk").hex(),
        "oneTimePrekeyId": opk_id,
        "oneTimePrekeyPrivate": secret(prefix + "/bob/opk").hex() if opk_id else "",
        "ephemeralPrivate": secret(prefix + "/alice/ek").hex(),
    }


def x3dh_outputs(inputs: dict) -> dict:
    """Every output of an X3DH test."""
    h = {k: bytes.fromhex(v) for k, v in inputs.items() if isinstance(v, str)}
    a_blob = keys.identity_blob(h["initiatorIdentityPrivate"], h["initiatorSigningSeed"])
    b_blob = keys.identity_blob(h["responderIdentityPrivate"], h["responderSigningSeed"])
    spk = keys.signed_prekey_record(inputs["signedPrekeyId"], h["signedPrekeyPrivate"])
    opk = (keys.prekey_form(inputs["oneTimePrekeyId"], h["oneTimePrekeyPrivate"])
           if inputs["oneTimePrekeyId"] else b"")
    sig = keys.sign_signed_prekey(h["responderSigningSeed"], spk)
    bundle = keys.verify_bundle(b_blob, spk, sig, opk)
    return {
        "initiatorIdentityBlob": a_blob.hex(), "responderIdentityBlob": b_blob.hex(),
        "signedPrekeyPublic": spk.hex(), "signedPrekeySignature": sig.hex(),
        "oneTimePrekeyPublic": opk.hex(),
        "ephemeralPublic": primitives.x25519_public(h["ephemeralPrivate"]).hex(),
        "sharedSecret": x3dh.initiator_secret(h["initiatorIdentityPrivate"], h["ephemeralPrivate"], bundle).hex(),
        "associatedData": (a_blob + b_blob).hex(),
    }


def x3dh_cases():
    """Valid X3DH setups and altered bundles a correct initiator refuses."""
    notes = {
        "ModifiedSpkSignature": "one bit of signedPrekeySignature flipped",
        "ModifiedSignedPrekey": "one bit of the SPK key flipped, signature not redone",
        "NonCanonicalSpkSignature": "S replaced by S + L (the equation still holds; S < L fails)",
        "ZeroSignedPrekeyId": "spk_id 0, re-signed",
        "NonCanonicalSignedPrekey": "SPK key p + 5 (non-canonical), re-signed",
        "HighBitSignedPrekey": "SPK key with bit 255 set, re-signed",
        "LowOrderSignedPrekey": "SPK key 1 (low order), re-signed",
        "LowOrderOneTimePrekey": "OPK key is a point of order 8",
        "ZeroOneTimePrekeyId": "opk_id 0 in a published OPK",
        "BadIdentityVersion": "identity blob version byte 0x02",
        "LowOrderIdentityKey": "IK in the identity blob is 0",
        "SmallOrderSigningKey": "SIG_pub in the identity blob is the neutral point",
        "TruncatedIdentityBlob": "identity blob of 64 bytes",
        "TrailingSignedPrekey": "signed prekey record of 142 bytes, re-signed",
    }
    cases = []
    for prefix, opk_id, comment in (("x3dh-1", 7, "with one-time prekey"),
                                    ("x3dh-2", 0, "without one-time prekey")):
        inputs = x3dh_inputs(prefix, opk_id)
        cases.append(("X3dhTest", dict(comment=comment, flags=[], **inputs,
                                       **x3dh_outputs(inputs), result="valid")))
    inputs = x3dh_inputs("x3dh-1", 7)
    honest = x3dh_outputs(inputs)
    seed = bytes.fromhex(inputs["responderSigningSeed"])
    spk = bytes.fromhex(honest["signedPrekeyPublic"])
    sig = bytes.fromhex(honest["signedPrekeySignature"])
    blob = bytes.fromhex(honest["responderIdentityBlob"])
    opk = bytes.fromhex(honest["oneTimePrekeyPublic"])

    def resigned(form: bytes) -> dict:
        return {"signedPrekeyPublic": form.hex(), "signedPrekeySignature": keys.sign_signed_prekey(seed, form).hex()}

    big_s = (int.from_bytes(sig[32:], "little") + 2**252 + 27742317777372353535851937790883648493)
    alterations = [
        ("ModifiedSpkSignature", "badSignature", {"signedPrekeySignature": flip(sig, 40).hex()}),
        ("ModifiedSignedPrekey", "badSignature", {"signedPrekeyPublic": flip(spk, 10).hex()}),
        ("NonCanonicalSpkSignature", "badSignature",
         {"signedPrekeySignature": (sig[:32] + big_s.to_bytes(32, "little")).hex()}),
        ("ZeroSignedPrekeyId", "malformed", resigned(spk[:1] + bytes(4) + spk[5:])),
        ("NonCanonicalSignedPrekey", "invalidKey",
         resigned(spk[:5] + (P + 5).to_bytes(32, "little") + spk[37:])),
        ("HighBitSignedPrekey", "invalidKey",
         resigned(spk[:36] + bytes([spk[36] | 0x80]) + spk[37:])),
        ("LowOrderSignedPrekey", "invalidKey",
         resigned(spk[:5] + (1).to_bytes(32, "little") + spk[37:])),
        ("LowOrderOneTimePrekey", "invalidKey", {"oneTimePrekeyPublic": (opk[:5] + ORDER8_X25519).hex()}),
        ("ZeroOneTimePrekeyId", "malformed", {"oneTimePrekeyPublic": (b"\x01" + bytes(4) + opk[5:]).hex()}),
        ("BadIdentityVersion", "unsupportedVersion", {"responderIdentityBlob": (b"\x02" + blob[1:]).hex()}),
        ("LowOrderIdentityKey", "invalidKey", {"responderIdentityBlob": (blob[:1] + bytes(32) + blob[33:]).hex()}),
        ("SmallOrderSigningKey", "invalidKey", {"responderIdentityBlob": (blob[:33] + ED25519_IDENTITY).hex()}),
        ("TruncatedIdentityBlob", "truncated", {"responderIdentityBlob": blob[:64].hex()}),
        ("TrailingSignedPrekey", "trailingBytes", resigned(spk + b"\x00")),
    ]
    for flag, failure, change in alterations:
        test = dict(comment=notes[flag], flags=[flag], **inputs, **honest)
        test.update(change)
        test.update(sharedSecret="", associatedData="", result="invalid")
        test["failure"] = refused_as(failure, lambda: initiate(test))
        cases.append(("X3dhTest", test))
    return notes, cases
