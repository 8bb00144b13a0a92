"""Sample protocol test cases built with this Python implementation (self-check only).

These are NOT the published vectors: those must come from the Swift code. The samples exercise
the verifier: same layout as TestVectors/protocol/README.md, fixed seeds, every negative case
the README lists. Each builder returns ``(notes, [(group_type, test), ...])``; every invalid
case is checked here to be refused with the intended typed error.
"""

import json

from e2ee_interop import envelopes, keys, primitives, sender_key, x3dh
from e2ee_interop.errors import ProtocolError
from e2ee_interop.payload import encode_payload, parse_payload
from e2ee_interop.safety_number import fingerprint, safety_number
from e2ee_interop.wire import b64encode, uuid_bytes

P = 2**255 - 19
ORDER8_X25519 = (325606250916557431795983626356110631294008115727848805560023387167927233504
                 ).to_bytes(32, "little")
ED25519_IDENTITY = bytes([1]) + bytes(31)  # the neutral point: small order


def secret(label: str) -> bytes:
    """A fixed 32-byte sample secret (not random: samples must be reproducible)."""
    return primitives.sha256(b"e2ee-interop-sample/" + label.encode())


def sample_uuid(label: str) -> str:
    """A fixed lower-case UUID text."""
    raw = secret("uuid/" + label)[:16].hex()
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-8{raw[17:20]}-{raw[20:32]}"


def flip(data: bytes, index: int, mask: int = 0x01) -> bytes:
    """``data`` with one byte changed."""
    out = bytearray(data)
    out[index] ^= mask
    return bytes(out)


def refused_as(expected: str, action) -> str:
    """Run ``action``; it must raise ProtocolError(expected). Returns the case name."""
    try:
        action()
    except ProtocolError as error:
        assert error.case == expected, f"refused as {error.case}, expected {expected}"
        return error.case
    raise AssertionError(f"accepted, expected {expected}")


# X3DH ------------------------------------------------------------------------------------------

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
    spk = keys.prekey_form(inputs["signedPrekeyId"], h["signedPrekeyPrivate"])
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
        "TrailingSignedPrekey": "signed prekey form of 38 bytes, re-signed",
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
        ("ZeroSignedPrekeyId", "malformed", resigned(b"\x01" + bytes(4) + spk[5:])),
        ("NonCanonicalSignedPrekey", "invalidKey", resigned(spk[:5] + (P + 5).to_bytes(32, "little"))),
        ("HighBitSignedPrekey", "invalidKey", resigned(spk[:36] + bytes([spk[36] | 0x80]))),
        ("LowOrderSignedPrekey", "invalidKey", resigned(spk[:5] + (1).to_bytes(32, "little"))),
        ("LowOrderOneTimePrekey", "invalidKey", {"oneTimePrekeyPublic": (opk[:5] + ORDER8_X25519).hex()}),
        ("ZeroOneTimePrekeyId", "malformed", {"oneTimePrekeyPublic": (b"\x01" + bytes(4) + opk[5:]).hex()}),
        ("BadIdentityVersion", "unsupportedVersion", {"responderIdentityBlob": (b"\x02" + blob[1:]).hex()}),
        ("LowOrderIdentityKey", "invalidKey", {"responderIdentityBlob": (blob[:1] + bytes(32) + blob[33:]).hex()}),
        ("SmallOrderSigningKey", "invalidKey", {"responderIdentityBlob": (blob[:33] + ED25519_IDENTITY).hex()}),
        ("TruncatedIdentityBlob", "truncated", {"responderIdentityBlob": blob[:64].hex()}),
        ("TrailingSignedPrekey", "trailingBytes", resigned(spk + b"\x00")),
    ]
    from e2ee_interop.checks.x3dh import initiate
    for flag, failure, change in alterations:
        test = dict(comment=notes[flag], flags=[flag], **inputs, **honest)
        test.update(change)
        test.update(sharedSecret="", associatedData="", result="invalid")
        test["failure"] = refused_as(failure, lambda: initiate(test))
        cases.append(("X3dhTest", test))
    return notes, cases


# Double Ratchet -------------------------------------------------------------------------------

class Conversation:
    """Drives two ``Device``s and records the README's ``events``."""

    def __init__(self, prefix: str, opk_id: int):
        from e2ee_interop.checks.double_ratchet import _parties
        self.prefix = prefix
        self.inputs = x3dh_inputs(prefix, opk_id)
        self.inputs["aliceInitialRatchetPrivate"] = secret(prefix + "/alice/ratchet/0").hex()
        self.parties = _parties(self.inputs)
        self.events, self.sends, self.draws = [], [], 0

    def send(self, party: str) -> int:
        """``party`` sends a DM-key-entry-shaped plaintext; returns the send index."""
        index = len(self.sends)
        plaintext = b"\x01" + secret(f"{self.prefix}/pt/{index}") + secret(f"{self.prefix}/pt2/{index}")
        message = self.parties[party].send(plaintext)
        self.sends.append(message)
        self.events.append({"event": "send", "party": party, "index": index,
                            "plaintext": plaintext.hex(), "message": message.hex()})
        return index

    def receive(self, party: str, index: int, step: bool) -> None:
        """A valid delivery of send ``index``; ``step`` says whether a DH step must happen."""
        drawn = []

        def new_key() -> bytes:
            self.draws += 1
            drawn.append(secret(f"{self.prefix}/{party}/ratchet/{self.draws}"))
            return drawn[-1]

        plaintext, stepped = self.parties[party].receive(self.sends[index], new_key)
        assert stepped == step and len(drawn) == int(step)
        assert plaintext.hex() == self.events[[e.get("index") for e in self.events].index(index)]["plaintext"]
        self.events.append({"event": "receive", "party": party, "index": index,
                            "newRatchetPrivate": drawn[0].hex() if drawn else "",
                            "result": "valid", "plaintext": plaintext.hex()})

    def reject(self, party: str, index: int, failure: str, message: bytes = None) -> None:
        """A delivery that must be refused (of send ``index`` or of altered bytes)."""
        bytes_in = self.sends[index] if message is None else message
        before = self.parties[party].state
        refused_as(failure, lambda: self.parties[party].receive(bytes_in, lambda: b"\x5a" * 32))
        assert self.parties[party].state is before
        event = {"event": "receive", "party": party, "index": index, "newRatchetPrivate": "",
                 "result": "invalid", "failure": failure}
        if message is not None:
            event["message"] = message.hex()
        self.events.append(event)

    def test(self, comment: str) -> dict:
        """The ConversationTest."""
        return dict(comment=comment, flags=[], **self.inputs, events=self.events, result="valid")


def _with_header(message: bytes, previous=None, number=None, ratchet=None) -> bytes:
    """A normal message (or the normal part of a prekey message) with header fields replaced."""
    start = 107 if message[0] == 0x02 else 1  # the header follows the version byte(s)
    out = bytearray(message)
    if ratchet is not None:
        out[start:start + 32] = ratchet
    if previous is not None:
        out[start + 32:start + 36] = previous.to_bytes(4, "big")
    if number is not None:
        out[start + 36:start + 40] = number.to_bytes(4, "big")
    return bytes(out)


def ratchet_cases():
    """Two conversations: DH turns, skipped keys within and across chains, and refusals."""
    c = Conversation("dr-1", 11)
    for _ in range(3):
        c.send("alice")                                        # 0, 1, 2: prekey form
    c.receive("bob", 1, step=True)                             # out of order: skips 0
    c.receive("bob", 0, step=False)                            # from the skipped keys
    c.reject("bob", 0, "duplicate")                            # duplicate delivery
    c.reject("bob", 2, "badTag", flip(c.sends[2], len(c.sends[2]) - 1))   # altered ciphertext
    c.reject("bob", 2, "truncated", c.sends[2][:56])           # truncated
    c.reject("bob", 2, "unsupportedVersion", b"\x07" + c.sends[2][1:])
    c.reject("bob", 2, "identityMismatch",                     # prekey with another identity blob
             c.sends[2][:1] + keys.identity_blob(secret("mallory/ik"), secret("mallory/sig")) + c.sends[2][66:])
    c.receive("bob", 2, step=False)
    c.send("bob")                                              # 3
    c.send("bob")                                              # 4
    c.reject("alice", 4, "badTag", _with_header(c.sends[4], previous=9))  # altered header
    c.reject("alice", 4, "invalidKey", _with_header(c.sends[4], ratchet=ORDER8_X25519))
    c.receive("alice", 4, step=True)                           # skips 3
    c.receive("alice", 3, step=False)
    for _ in range(3):
        c.send("alice")                                        # 5, 6, 7: normal form now
    assert c.sends[5][0] == 0x01
    c.receive("bob", 6, step=True)
    c.receive("bob", 5, step=False)
    c.send("bob")                                              # 8
    c.receive("alice", 8, step=True)
    c.send("alice")                                            # 9: new chain, PN = 3
    c.receive("bob", 9, step=True)                             # skips 7 on the old chain
    c.reject("bob", 9, "tooFarAhead", _with_header(c.sends[9], number=1500))  # skip above 1000
    c.receive("bob", 7, step=False)                            # across chains
    c.reject("bob", 0, "badTag")                               # an old prekey message again
    c.send("bob")                                              # 10
    c.receive("alice", 10, step=True)
    first = c.test("DH turns, skips within and across chains; duplicate, badTag (ciphertext, header), "
                   "truncated, unsupported version, identity mismatch, low-order ratchet key, "
                   "skip above 1000, replayed prekey message")

    d = Conversation("dr-2", 0)
    for _ in range(5):
        d.send("alice")                                        # 0..4
    d.reject("bob", 4, "tooFarAhead", _with_header(d.sends[4], number=1001))  # first message skips 1001
    d.receive("bob", 4, step=True)                             # skips 0..3
    d.reject("bob", 0, "badTag", d.sends[0][:1] + d.sends[0][1:66] + primitives.x25519_public(secret("other-ek"))
             + d.sends[0][98:])                                # a fresh EK_A: new X3DH, tag fails
    d.receive("bob", 2, step=False)
    d.receive("bob", 0, step=False)
    d.send("bob")                                              # 5
    d.receive("alice", 5, step=True)
    d.receive("bob", 3, step=False)
    d.receive("bob", 1, step=False)
    d.send("alice")                                            # 6
    d.receive("bob", 6, step=True)
    second = d.test("no one-time prekey; first received message is the last of five; "
                    "skip of 1001 refused; prekey message with a fresh EK_A refused")
    return {}, [("ConversationTest", first), ("ConversationTest", second)]


# Sender key chain ------------------------------------------------------------------------------

def _chain_items(chain_key: bytes, iterations):
    items, next_iteration = [], 0
    for iteration in iterations:
        for _ in range(iteration - next_iteration):
            _, chain_key = sender_key.chain_step(chain_key)
        message_key, chain_key = sender_key.chain_step(chain_key)
        aes_key, nonce = sender_key.message_key_material(message_key)
        items.append({"iteration": iteration, "messageKey": message_key.hex(), "aesKey": aes_key.hex(),
                      "nonce": nonce.hex(), "nextChainKey": chain_key.hex()})
        next_iteration = iteration + 1
    return items


def sender_key_cases():
    """Consecutive and sparse iterations, and one altered chain."""
    notes = {"ModifiedNextChainKey": "one bit of a nextChainKey flipped"}
    ck = secret("sk-chain-1")
    altered = _chain_items(ck, range(3))
    altered[1]["nextChainKey"] = flip(bytes.fromhex(altered[1]["nextChainKey"]), 0).hex()
    return notes, [
        ("ChainTest", {"comment": "iterations 0 to 5", "flags": [], "chainKey": ck.hex(),
                       "iterations": _chain_items(ck, range(6)), "result": "valid"}),
        ("ChainTest", {"comment": "sparse iterations", "flags": [], "chainKey": secret("sk-chain-2").hex(),
                       "iterations": _chain_items(secret("sk-chain-2"), [0, 1, 7, 100]), "result": "valid"}),
        ("ChainTest", {"comment": notes["ModifiedNextChainKey"], "flags": ["ModifiedNextChainKey"],
                       "chainKey": ck.hex(), "iterations": altered, "result": "invalid",
                       "failure": "mismatch"}),
    ]


# Envelopes -------------------------------------------------------------------------------------

def _pairwise_to(label: str, plaintext: bytes) -> bytes:
    """A real pairwise message carrying ``plaintext`` (first message of a fresh session)."""
    c = Conversation("env/" + label, 3)
    return c.parties["alice"].send(plaintext)


def _payload(label: str, text: str) -> bytes:
    return encode_payload({"id": sample_uuid("msg/" + label), "ts": 1_764_000_000_000, "text": text})


def dm_case(label: str, recipients: int = 2) -> dict:
    """A valid DmEnvelopeTest."""
    channel, sender = sample_uuid(label + "/channel"), sample_uuid(label + "/sender")
    key, nonce = secret(label + "/K"), secret(label + "/nonce")[:12]
    payload = _payload(label, "hello, \"world\" \u2014 \U0001F44B")
    ct = envelopes.seal_dm_payload(key, nonce, payload, uuid_bytes(channel), uuid_bytes(sender))
    entry = envelopes.dm_entry_plaintext(key, nonce, ct)
    items = [{"deviceId": sample_uuid(f"{label}/device/{i}"), "entryPlaintext": entry.hex(),
              "pairwiseMessage": _pairwise_to(f"{label}/{i}", entry).hex()} for i in range(recipients)]
    envelope = envelopes.build_dm(uuid_bytes(sender), nonce, key,
                                  [(uuid_bytes(r["deviceId"]), bytes.fromhex(r["pairwiseMessage"])) for r in items], ct)
    return {"comment": f"DM to {recipients} devices", "flags": [], "channelId": channel, "senderDeviceId": sender,
            "payloadKey": key.hex(), "payloadNonce": nonce.hex(), "payload": payload.hex(),
            "keyCommit": envelopes.key_commit(key).hex(), "payloadCiphertext": ct.hex(), "recipients": items,
            "envelope": envelope.hex(), "content": b64encode(envelope), "result": "valid"}


def group_case(label: str, iteration: int) -> dict:
    """A valid GroupEnvelopeTest."""
    channel, sender = sample_uuid(label + "/channel"), sample_uuid(label + "/sender")
    chain_key, seed = secret(label + "/ck"), secret(label + "/sig")
    key_id = int.from_bytes(secret(label + "/keyid")[:4], "big")
    payload = _payload(label, "group message")
    mk, _ = sender_key.chain_step(chain_key)
    aes_key, nonce = sender_key.message_key_material(mk)
    envelope, ct, sig = envelopes.build_group(uuid_bytes(channel), uuid_bytes(sender), key_id, iteration,
                                              aes_key, nonce, seed, payload)
    return {"comment": f"group message at iteration {iteration}", "flags": [], "channelId": channel,
            "senderDeviceId": sender, "keyId": key_id, "iteration": iteration, "chainKey": chain_key.hex(),
            "signingSeed": seed.hex(), "payload": payload.hex(),
            "signingPublic": primitives.ed25519_public(seed).hex(), "ciphertext": ct.hex(),
            "signature": sig.hex(), "envelope": envelope.hex(), "content": b64encode(envelope), "result": "valid"}


def skd_case(label: str) -> dict:
    """A valid SkdEnvelopeTest."""
    channel, sender = sample_uuid(label + "/channel"), sample_uuid(label + "/sender")
    chain_key, signing_public = secret(label + "/ck"), primitives.ed25519_public(secret(label + "/sig"))
    key_id, iteration = 0x01020304, 42
    skd = sender_key.encode_skd(uuid_bytes(channel), key_id, iteration, chain_key, signing_public)
    items = [{"deviceId": sample_uuid(f"{label}/device/{i}"), "pairwiseMessage": _pairwise_to(f"{label}/{i}", skd).hex()}
             for i in range(2)]
    envelope = envelopes.build_skd(uuid_bytes(sender), [(uuid_bytes(r["deviceId"]), bytes.fromhex(r["pairwiseMessage"]))
                                                       for r in items])
    return {"comment": "SKD to 2 devices", "flags": [], "channelId": channel, "senderDeviceId": sender,
            "keyId": key_id, "iteration": iteration, "chainKey": chain_key.hex(),
            "signingPublic": signing_public.hex(), "skdPlaintext": skd.hex(), "recipients": items,
            "envelope": envelope.hex(), "content": b64encode(envelope), "result": "valid"}


def _altered(test: dict, flag: str, comment: str, failure: str, **changes) -> dict:
    out = json.loads(json.dumps(test))
    if "envelope" in changes:
        changes["content"] = b64encode(changes["envelope"])
        changes["envelope"] = changes["envelope"].hex()
    out.update(changes, comment=comment, flags=[flag], result="invalid", failure=failure)
    return out


def _malformed_contents(dm: dict, group: dict, skd: dict):
    """(flag, comment, content type, content, failure) for MalformedEnvelopeTest."""
    dm_env, group_env, skd_env = (bytes.fromhex(t["envelope"]) for t in (dm, group, skd))
    sender = dm_env[2:18]
    entry_at = 64  # 2 + 16 + 12 + 32 + 2: the first recipient entry
    first_len = int.from_bytes(dm_env[entry_at + 16:entry_at + 18], "big")
    second_at = entry_at + 18 + first_len
    ct_at = len(dm_env) - len(bytes.fromhex(dm["payloadCiphertext"]))
    b = b64encode
    return [
        ("NotBase64", "characters outside the alphabet", "e2ee.dm", "A*==", "malformed"),
        ("Base64Whitespace", "a line break inside content", "e2ee.dm", b(dm_env)[:8] + "\n" + b(dm_env)[8:], "malformed"),
        ("Base64UrlAlphabet", "url-safe alphabet", "e2ee.dm", "-_-_", "malformed"),
        ("Base64MissingPadding", "padding left out", "e2ee.dm", b(dm_env).rstrip("="), "malformed"),
        ("Base64NonZeroPadding", "non-zero padding bits (QR==)", "e2ee.dm", "QR==", "malformed"),
        ("ContentTooLong", "524,292 base64 characters", "e2ee.dm", "A" * 524_292, "limitExceeded"),
        ("EmptyContent", "no bytes", "e2ee.dm", "", "truncated"),
        ("UnknownEnvelopeVersion", "first byte 0x04", "e2ee.dm", b(b"\x04" + dm_env[1:]), "unsupportedVersion"),
        ("UnknownEnvelopeType", "type byte 0x09", "e2ee.dm", b(dm_env[:1] + b"\x09" + dm_env[2:]), "unsupportedVersion"),
        ("ContentTypeMismatch", "a DM envelope posted as e2ee.group", "e2ee.group", dm["content"], "wrongEnvelopeType"),
        ("ZeroRecipients", "n = 0", "e2ee.dm", b(dm_env[:62] + b"\x00\x00" + dm_env[second_at:]), "limitExceeded"),
        ("TooManyRecipients", "n = 1001, checked before any entry", "e2ee.dm", b(dm_env[:62] + b"\x03\xe9" + dm_env[64:]), "limitExceeded"),
        ("DuplicateRecipient", "the second entry names the first recipient", "e2ee.dm",
         b(dm_env[:second_at] + dm_env[entry_at:entry_at + 16] + dm_env[second_at + 16:]), "invalidRecipients"),
        ("RecipientIsSender", "an entry addressed to the sending device", "e2ee.dm",
         b(dm_env[:entry_at] + sender + dm_env[entry_at + 16:]), "invalidRecipients"),
        ("ShortPairwiseMessage", "an entry of 56 bytes", "e2ee.dm",
         b(dm_env[:entry_at + 16] + b"\x00\x38" + dm_env[entry_at + 18:entry_at + 18 + 56] + dm_env[second_at:]), "limitExceeded"),
        ("EntryPastEnd", "an entry length beyond the envelope", "e2ee.dm",
         b(dm_env[:entry_at + 16] + b"\xff\xff" + dm_env[entry_at + 18:]), "truncated"),
        ("UnknownPairwiseVersion", "an entry whose pairwise message starts with 0x05", "e2ee.dm",
         b(dm_env[:entry_at + 18] + b"\x05" + dm_env[entry_at + 19:]), "unsupportedVersion"),
        ("ShortPayloadCiphertext", "payload_ct of 15 bytes", "e2ee.dm", b(dm_env[:ct_at + 15]), "truncated"),
        ("LongPayloadCiphertext", "payload_ct of 65,553 bytes", "e2ee.dm", b(dm_env[:ct_at] + bytes(65_553)),
         "limitExceeded"),
        ("TruncatedDmHeader", "ends inside key_commit", "e2ee.dm", b(dm_env[:40]), "truncated"),
        ("ShortGroupCiphertext", "group ct of 15 bytes", "e2ee.group", b(group_env[:26] + bytes(15) + group_env[-64:]), "truncated"),
        ("LongGroupCiphertext", "group ct of 65,553 bytes", "e2ee.group", b(group_env[:26] + bytes(65_553) + group_env[-64:]), "limitExceeded"),
        ("SkdTrailingBytes", "one byte after the last SKD entry", "e2ee.skd", b(skd_env + b"\x00"), "trailingBytes"),
        ("SkdZeroRecipients", "SKD with n = 0", "e2ee.skd", b(skd_env[:18] + b"\x00\x00"), "limitExceeded"),
    ]


def envelope_cases():
    """Valid DM, group and SKD envelopes; altered ones; malformed contents."""
    notes = {
        "ModifiedKeyCommit": "one bit of key_commit flipped",
        "ModifiedPayloadCiphertext": "payload_ct altered and the entry hash recomputed over it",
        "ModifiedEntryHash": "the entry plaintext's payload hash altered",
        "WrongChannel": "opened in another channel than it was made for",
        "SenderMismatch": "senderDeviceId differs from the envelope's",
        "ModifiedGroupSignature": "one bit of the group signature flipped",
        "ModifiedGroupCiphertext": "group ct altered and re-signed",
        "SkdChannelMismatch": "the SKD names another channel",
        "SkdSmallOrderSigningKey": "SK_sig_pub in the SKD is the neutral point",
    }
    dm, group, skd = dm_case("env-dm-1"), group_case("env-group-1", 0), skd_case("env-skd-1")
    cases = [("DmEnvelopeTest", dm), ("DmEnvelopeTest", dm_case("env-dm-2", 1)),
             ("GroupEnvelopeTest", group), ("GroupEnvelopeTest", group_case("env-group-2", 5)),
             ("SkdEnvelopeTest", skd)]
    dm_env = bytes.fromhex(dm["envelope"])
    ct = bytes.fromhex(dm["payloadCiphertext"])
    bad_ct = flip(ct, 0)
    bad_entry = (b"\x01" + bytes.fromhex(dm["payloadKey"]) + primitives.sha256(bytes.fromhex(dm["payloadNonce"]) + bad_ct))
    other = sample_uuid("other-channel")
    group_env = bytes.fromhex(group["envelope"])
    seed = bytes.fromhex(group["signingSeed"])
    forged_head = group_env[:26]
    forged_ct = flip(bytes.fromhex(group["ciphertext"]), 3)
    forged_sig = primitives.ed25519_sign(seed, envelopes.GROUP_SIG_LABEL + uuid_bytes(group["channelId"]) + forged_head + forged_ct)
    skd_pt = bytes.fromhex(skd["skdPlaintext"])
    altered = [
        ("DmEnvelopeTest", _altered(dm, "ModifiedKeyCommit", notes["ModifiedKeyCommit"], "keyCommitMismatch",
                                    envelope=flip(dm_env, 30))),
        ("DmEnvelopeTest", _altered(dm, "ModifiedPayloadCiphertext", notes["ModifiedPayloadCiphertext"], "badTag",
                                    envelope=dm_env[:-len(ct)] + bad_ct,
                                    recipients=[dict(r, entryPlaintext=bad_entry.hex()) for r in dm["recipients"]])),
        ("DmEnvelopeTest", _altered(dm, "ModifiedEntryHash", notes["ModifiedEntryHash"], "malformed",
                                    recipients=[dict(r, entryPlaintext=flip(bytes.fromhex(r["entryPlaintext"]), 64).hex())
                                                for r in dm["recipients"]])),
        ("DmEnvelopeTest", _altered(dm, "WrongChannel", notes["WrongChannel"], "badTag", channelId=other)),
        ("DmEnvelopeTest", _altered(dm, "SenderMismatch", notes["SenderMismatch"], "senderMismatch",
                                    senderDeviceId=sample_uuid("someone-else"))),
        ("GroupEnvelopeTest", _altered(group, "ModifiedGroupSignature", notes["ModifiedGroupSignature"], "badSignature",
                                       envelope=flip(group_env, len(group_env) - 1))),
        ("GroupEnvelopeTest", _altered(group, "ModifiedGroupCiphertext", notes["ModifiedGroupCiphertext"], "badTag",
                                       envelope=forged_head + forged_ct + forged_sig)),
        ("GroupEnvelopeTest", _altered(group, "WrongChannel", notes["WrongChannel"], "badSignature", channelId=other)),
        ("SkdEnvelopeTest", _altered(skd, "SkdChannelMismatch", notes["SkdChannelMismatch"], "channelMismatch",
                                     skdPlaintext=(skd_pt[:1] + uuid_bytes(other) + skd_pt[17:]).hex())),
        ("SkdEnvelopeTest", _altered(skd, "SkdSmallOrderSigningKey", notes["SkdSmallOrderSigningKey"], "invalidKey",
                                     skdPlaintext=(skd_pt[:57] + ED25519_IDENTITY).hex())),
    ]
    from e2ee_interop.checks.envelope import _OPEN
    for kind, test in altered:
        refused_as(test["failure"], lambda: _OPEN[kind](test))
        cases.append((kind, test))
    for flag, comment, content_type, content, failure in _malformed_contents(dm, group, skd):
        notes[flag] = comment
        refused_as(failure, lambda: envelopes.parse_content(content, content_type))
        cases.append(("MalformedEnvelopeTest", {"comment": comment, "flags": [flag], "channelId": dm["channelId"],
                                                "contentType": content_type, "content": content,
                                                "result": "invalid", "failure": failure}))
    return notes, cases


# Payload ---------------------------------------------------------------------------------------

def payload_cases():
    """Accepted payloads with their canonical encoding, and every refusal of §6."""
    mid, edited, reply = sample_uuid("p/id"), sample_uuid("p/edited"), sample_uuid("p/reply")
    valid = [
        ("minimal post", "post", None, f'{{"v":1,"id":"{mid}","ts":1764000000000,"text":"hi"}}'.encode()),
        ("keys in another order, whitespace, unknown keys (nested) ignored", "post", None,
         f' {{ "text" : "hi", "x": {{"a": [1, 2.5, null, true]}}, "ts": 0, "id": "{mid}", "v": 1 }} \n'.encode()),
        ("reply_to kept", "post", None, f'{{"v":1,"id":"{mid}","ts":9007199254740991,"text":"","reply_to":"{reply}"}}'.encode()),
        ("edit carries edit_of = its message id", "edit", edited,
         f'{{"v":1,"id":"{mid}","ts":5,"text":"fixed","edit_of":"{edited}","reply_to":"{reply}"}}'.encode()),
        ("ts written as -0 is 0", "post", None, f'{{"v":1,"id":"{mid}","ts":-0,"text":"z"}}'.encode()),
        ("escapes: quote, backslash, controls, surrogate pair, U+2028, raw non-ASCII", "post", None,
         ('{"v":1,"id":"' + mid + '","ts":1,"text":"\\"\\\\\\n\\t\\u0001\\ud83d\\ude00\\u2028\\u00e9 \u00e9\U0001F600 /\\/"}').encode()),
        ("exactly 65,536 bytes", "post", None, None),
    ]
    head = f'{{"v":1,"id":"{mid}","ts":1,"text":"'.encode()
    big = head + b"a" * (65_536 - len(head) - 2) + b'"}'
    base = f'"id":"{mid}","ts":1,"text":"t"'
    invalid = [
        ("DuplicateKey", "the same key twice at the top", "post", None, f'{{"v":1,{base},"text":"u"}}'.encode()),
        ("DuplicateKeyEscaped", "a duplicate spelt with an escape", "post", None, f'{{"v":1,{base},"t\\u0065xt":"u"}}'.encode()),
        ("DuplicateNestedKey", "a duplicate inside an unknown key's object", "post", None, f'{{"v":1,{base},"x":{{"a":1,"a":2}}}}'.encode()),
        ("LoneSurrogate", "a lone high surrogate in text", "post", None, f'{{"v":1,"id":"{mid}","ts":1,"text":"a\\ud800"}}'.encode()),
        ("LoneLowSurrogateInKey", "a lone low surrogate in an unknown key", "post", None, f'{{"v":1,{base},"\\udc00":1}}'.encode()),
        ("ByteOrderMark", "starts with a UTF-8 BOM", "post", None, b"\xef\xbb\xbf" + f'{{"v":1,{base}}}'.encode()),
        ("InvalidUtf8", "a 0xff byte in text", "post", None, f'{{"v":1,"id":"{mid}","ts":1,"text":"'.encode() + b'\xff"}'),
        ("OverlongUtf8", "an overlong encoding of '/'", "post", None, f'{{"v":1,"id":"{mid}","ts":1,"text":"'.encode() + b'\xc0\xaf"}'),
        ("EncodedSurrogate", "a surrogate encoded directly in UTF-8", "post", None, f'{{"v":1,"id":"{mid}","ts":1,"text":"'.encode() + b'\xed\xa0\x80"}'),
        ("WrongVersion", "v = 2", "post", None, f'{{"v":2,{base}}}'.encode()),
        ("VersionWithFraction", "v = 1.0", "post", None, f'{{"v":1.0,{base}}}'.encode()),
        ("VersionBoolean", "v = true", "post", None, f'{{"v":true,{base}}}'.encode()),
        ("MissingVersion", "no v", "post", None, f'{{{base}}}'.encode()),
        ("TimestampExponent", "ts = 1e3", "post", None, f'{{"v":1,"id":"{mid}","ts":1e3,"text":"t"}}'.encode()),
        ("TimestampFraction", "ts = 1.5", "post", None, f'{{"v":1,"id":"{mid}","ts":1.5,"text":"t"}}'.encode()),
        ("TimestampNegative", "ts = -1", "post", None, f'{{"v":1,"id":"{mid}","ts":-1,"text":"t"}}'.encode()),
        ("TimestampTooLarge", "ts = 2^53", "post", None, f'{{"v":1,"id":"{mid}","ts":9007199254740992,"text":"t"}}'.encode()),
        ("TimestampString", "ts as a string", "post", None, f'{{"v":1,"id":"{mid}","ts":"1","text":"t"}}'.encode()),
        ("UpperCaseId", "id in upper case", "post", None, f'{{"v":1,"id":"{mid.upper()}","ts":1,"text":"t"}}'.encode()),
        ("IdNotUuid", "id without dashes", "post", None, f'{{"v":1,"id":"{mid.replace("-", "")}","ts":1,"text":"t"}}'.encode()),
        ("MissingId", "no id", "post", None, b'{"v":1,"ts":1,"text":"t"}'),
        ("MissingText", "no text", "post", None, f'{{"v":1,"id":"{mid}","ts":1}}'.encode()),
        ("TextNotString", "text = 5", "post", None, f'{{"v":1,"id":"{mid}","ts":1,"text":5}}'.encode()),
        ("ReplyToNotString", "reply_to = 5", "post", None, f'{{"v":1,{base},"reply_to":5}}'.encode()),
        ("EditOfInPost", "posted content carries edit_of", "post", None, f'{{"v":1,{base},"edit_of":"{edited}"}}'.encode()),
        ("EditWithoutEditOf", "an edit without edit_of", "edit", edited, f'{{"v":1,{base}}}'.encode()),
        ("EditOfOtherMessage", "an edit whose edit_of names another message", "edit", edited, f'{{"v":1,{base},"edit_of":"{reply}"}}'.encode()),
        ("TooLarge", "65,537 bytes", "post", None, head + b"a" * (65_537 - len(head) - 2) + b'"}'),
        ("NotAnObject", "a JSON array", "post", None, b'[1]'),
        ("NaN", "NaN in an unknown key", "post", None, f'{{"v":1,{base},"x":NaN}}'.encode()),
        ("TrailingData", "a second value after the object", "post", None, f'{{"v":1,{base}}} {{}}'.encode()),
        ("InvalidJson", "a trailing comma", "post", None, f'{{"v":1,{base},}}'.encode()),
    ]
    notes, cases = {}, []
    for comment, context, message_id, data in valid:
        data = big if data is None else data
        fields = parse_payload(data, context, message_id)
        test = {"comment": comment, "flags": [], "json": data.hex(), "context": context}
        if message_id:
            test["messageId"] = message_id
        test.update(fields=fields, encoded=encode_payload(fields).hex(), result="valid")
        cases.append(("PayloadTest", test))
    for flag, comment, context, message_id, data in invalid:
        notes[flag] = comment
        failure = "limitExceeded" if flag == "TooLarge" else (
            "unsupportedVersion" if "Version" in flag else "malformed")
        refused_as(failure, lambda: parse_payload(data, context, message_id))
        test = {"comment": comment, "flags": [flag], "json": data.hex(), "context": context}
        if message_id:
            test["messageId"] = message_id
        test.update(result="invalid", failure=failure)
        cases.append(("PayloadTest", test))
    return notes, cases


# Safety numbers --------------------------------------------------------------------------------

def safety_number_cases():
    """Users with one and several devices (listed unsorted), and an altered fingerprint."""
    def blobs(label, count):
        return [keys.identity_blob(secret(f"{label}/ik/{i}"), secret(f"{label}/sig/{i}")).hex() for i in range(count)]

    def case(user_a, blobs_a, user_b, blobs_b, comment):
        fa = fingerprint(user_a, [bytes.fromhex(x) for x in blobs_a])
        fb = fingerprint(user_b, [bytes.fromhex(x) for x in blobs_b])
        return {"comment": comment, "flags": [], "userA": user_a, "blobsA": blobs_a, "userB": user_b,
                "blobsB": blobs_b, "fingerprintA": fa, "fingerprintB": fb,
                "safetyNumber": safety_number(fa, fb), "result": "valid"}

    one = case(sample_uuid("sn/u1"), blobs("sn/u1", 1), sample_uuid("sn/u2"), blobs("sn/u2", 1), "one device each")
    many = blobs("sn/u3", 3)
    several = case(sample_uuid("sn/u3"), many[::-1], sample_uuid("sn/u4"), blobs("sn/u4", 2),
                   "three devices listed out of order, and two")
    altered = dict(one, comment="fingerprintA with one digit changed", flags=["ModifiedFingerprint"],
                   result="invalid", failure="mismatch")
    altered["fingerprintA"] = str((int(one["fingerprintA"][0]) + 1) % 10) + one["fingerprintA"][1:]
    return ({"ModifiedFingerprint": "one digit of fingerprintA changed"},
            [("SafetyNumberTest", one), ("SafetyNumberTest", several), ("SafetyNumberTest", altered)])
