"""E2EE-X3DH (group type X3dhTest): published forms, signature, SK and AD.

valid: every output is recomputed from the private inputs; the initiator then verifies the
published bundle and derives SK, and the responder derives the same SK.
invalid: the initiator must refuse the bundle made of the vector's published values
(``responderIdentityBlob``, ``signedPrekeyPublic``, ``signedPrekeySignature``,
``oneTimePrekeyPublic``); ``sharedSecret`` and ``associatedData`` must be empty.
"""

from .. import keys, primitives, x3dh
from .common import (VectorFailure, expect_group_type, expect_hex, expect_refused, field,
                     hexfield, intfield)

ALGORITHM = "E2EE-X3DH"


def bundle_inputs(test: dict):
    """Bob's one-time prekey input as (id, private) with (0, b"") for none."""
    opk_id = intfield(test, "oneTimePrekeyId")
    opk_private = hexfield(test, "oneTimePrekeyPrivate")
    if bool(opk_id) != bool(opk_private):
        raise VectorFailure("oneTimePrekeyId and oneTimePrekeyPrivate disagree about an OPK")
    return opk_id, opk_private


def published_bundle(test: dict) -> keys.Bundle:
    """Verify the bundle made of the vector's published values (as the initiator does)."""
    return keys.verify_bundle(hexfield(test, "responderIdentityBlob"),
                              hexfield(test, "signedPrekeyPublic"),
                              hexfield(test, "signedPrekeySignature"),
                              hexfield(test, "oneTimePrekeyPublic"))


def initiate(test: dict) -> bytes:
    """The initiator's whole side: verify the published bundle, derive SK."""
    bundle = published_bundle(test)
    return x3dh.initiator_secret(hexfield(test, "initiatorIdentityPrivate"),
                                 hexfield(test, "ephemeralPrivate"), bundle)


def check(group: dict, test: dict) -> None:
    """Check one X3dhTest."""
    expect_group_type(group, "X3dhTest")
    if field(test, "result") == "invalid":
        expect_refused(lambda: initiate(test), "the bundle", test.get("failure"))
        if field(test, "sharedSecret") != "" or field(test, "associatedData") != "":
            raise VectorFailure("an invalid test must have empty sharedSecret and associatedData")
        return
    opk_id, opk_private = bundle_inputs(test)
    initiator_blob = keys.identity_blob(hexfield(test, "initiatorIdentityPrivate"),
                                        hexfield(test, "initiatorSigningSeed"))
    responder_blob = keys.identity_blob(hexfield(test, "responderIdentityPrivate"),
                                        hexfield(test, "responderSigningSeed"))
    spk_record = keys.signed_prekey_record(intfield(test, "signedPrekeyId"),
                                           hexfield(test, "signedPrekeyPrivate"))
    expect_hex(test, "initiatorIdentityBlob", initiator_blob)
    expect_hex(test, "responderIdentityBlob", responder_blob)
    expect_hex(test, "signedPrekeyPublic", spk_record)
    expect_hex(test, "signedPrekeySignature",
               keys.sign_signed_prekey(hexfield(test, "responderSigningSeed"), spk_record))
    expect_hex(test, "oneTimePrekeyPublic",
               keys.prekey_form(opk_id, opk_private) if opk_id else b"")
    ephemeral_public = primitives.x25519_public(hexfield(test, "ephemeralPrivate"))
    expect_hex(test, "ephemeralPublic", ephemeral_public)
    secret = initiate(test)
    expect_hex(test, "sharedSecret", secret)
    responder = x3dh.responder_secret(hexfield(test, "responderIdentityPrivate"),
                                      hexfield(test, "signedPrekeyPrivate"), opk_private,
                                      initiator_blob[1:33], ephemeral_public)
    expect_hex(test, "sharedSecret", responder, "sharedSecret (responder side)")
    expect_hex(test, "associatedData", x3dh.associated_data(initiator_blob, responder_blob))
