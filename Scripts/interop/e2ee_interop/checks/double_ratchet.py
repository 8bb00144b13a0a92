"""E2EE-DOUBLE-RATCHET (group type ConversationTest): replays a conversation's events.

Both parties are rebuilt from the X3DH inputs; every ``send`` must produce the vector's
``message`` exactly; every ``receive`` is run on the delivered bytes (the message of send
``index`` or the event's own ``message``): a valid one must yield ``plaintext`` and perform a
DH ratchet step exactly when ``newRatchetPrivate`` is given; an invalid one must be refused and
leave the receiver's state untouched. The test's own ``result`` must be ``valid``.
"""

from .. import keys
from ..errors import ProtocolError
from ..session import Device
from .common import (VectorFailure, expect_bytes, expect_group_type, expect_refused, field,
                     hexfield, intfield)
from .x3dh import bundle_inputs

ALGORITHM = "E2EE-DOUBLE-RATCHET"
# For refused receives the new sending key never matters (the receiving chain comes from the
# old own key), so an event may omit it; this stand-in is used then.
_PLACEHOLDER_RATCHET_PRIVATE = b"\x5a" * 32


def _parties(test: dict):
    alice_blob = keys.identity_blob(hexfield(test, "initiatorIdentityPrivate"),
                                    hexfield(test, "initiatorSigningSeed"))
    bob_seed = hexfield(test, "responderSigningSeed")
    spk_id, spk_private = intfield(test, "signedPrekeyId"), hexfield(test, "signedPrekeyPrivate")
    opk_id, opk_private = bundle_inputs(test)
    bob = Device(hexfield(test, "responderIdentityPrivate"), bob_seed, {spk_id: spk_private},
                 {opk_id: opk_private} if opk_id else {}, listed_peer_blob=alice_blob)
    alice = Device(hexfield(test, "initiatorIdentityPrivate"), hexfield(test, "initiatorSigningSeed"),
                   listed_peer_blob=bob.identity_blob)
    spk_record = keys.signed_prekey_record(spk_id, spk_private)
    bundle = keys.verify_bundle(bob.identity_blob, spk_record,
                                keys.sign_signed_prekey(bob_seed, spk_record),
                                keys.prekey_form(opk_id, opk_private) if opk_id else b"")
    alice.start_session(bundle, hexfield(test, "ephemeralPrivate"),
                        hexfield(test, "aliceInitialRatchetPrivate"))
    return {"alice": alice, "bob": bob}


def _receive(party: Device, event: dict, where: str, message: bytes) -> None:
    supplied = hexfield(event, "newRatchetPrivate") if event.get("newRatchetPrivate") else b""
    valid = field(event, "result") == "valid"

    def new_ratchet_private() -> bytes:
        if supplied:
            return supplied
        if valid:
            raise VectorFailure(f"{where}: the message carries a new ratchet key but "
                                "newRatchetPrivate is empty")
        return _PLACEHOLDER_RATCHET_PRIVATE

    if valid:
        try:
            plaintext, stepped = party.receive(message, new_ratchet_private)
        except ProtocolError as error:
            raise VectorFailure(f"{where}: refused ({error.case}) although the event is valid") from error
        expect_bytes(f"{where}.plaintext", hexfield(event, "plaintext"), plaintext)
        if supplied and not stepped:
            raise VectorFailure(f"{where}: newRatchetPrivate given but no DH ratchet step happens")
        return
    if field(event, "result") != "invalid":
        raise VectorFailure(f"{where}: result must be valid or invalid")
    if not isinstance(event.get("failure"), str):
        raise VectorFailure(f"{where}: an invalid receive needs a failure name")
    before = party.state
    expect_refused(lambda: party.receive(message, new_ratchet_private), f"{where} message",
                   event["failure"])
    if party.state is not before:
        raise VectorFailure(f"{where}: a refused message changed the receiver's state")


def check(group: dict, test: dict) -> None:
    """Check one ConversationTest."""
    expect_group_type(group, "ConversationTest")
    if field(test, "result") != "valid":
        raise VectorFailure("a conversation test's result is valid; refusals are receive events")
    parties = _parties(test)
    sends = []
    events = field(test, "events")
    if not isinstance(events, list) or not events:
        raise VectorFailure("events must be a non-empty list")
    for number, event in enumerate(events):
        where = f"events[{number}]"
        party = parties.get(field(event, "party"))
        if party is None:
            raise VectorFailure(f"{where}: party must be alice or bob")
        index = intfield(event, "index")
        kind = field(event, "event")
        if kind == "send":
            if index != len(sends):
                raise VectorFailure(f"{where}: send index {index}, expected {len(sends)}")
            message = hexfield(event, "message")
            try:
                sent = party.send(hexfield(event, "plaintext"), hexfield(event, "nonce"))
            except ProtocolError as error:
                raise VectorFailure(f"{where}: cannot send ({error.case})") from error
            expect_bytes(f"{where}.message", message, sent)
            sends.append(message)
        elif kind == "receive":
            if "message" in event:
                message = hexfield(event, "message")
            elif 0 <= index < len(sends):
                message = sends[index]
            else:
                raise VectorFailure(f"{where}: no send with index {index} before it")
            _receive(party, event, where, message)
        else:
            raise VectorFailure(f"{where}: unknown event {kind!r}")
