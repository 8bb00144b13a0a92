"""Double Ratchet samples: scripted conversations recorded as the README's events."""

from e2ee_interop import keys, primitives
from e2ee_interop.checks.double_ratchet import _parties

from .common import ORDER8_X25519, flip, refused_as, secret
from .x3dh import x3dh_inputs


class Conversation:
    """Drives two ``Device``s and records the README's ``events``."""

    def __init__(self, prefix: str, opk_id: int):
        self.prefix = prefix
        self.inputs = x3dh_inputs(prefix, opk_id)
        self.inputs["aliceInitialRatchetPrivate"] = secret(prefix + "/alice/ratchet/0").hex()
        self.parties = _parties(self.inputs)
        self.events, self.sends, self.draws = [], [], 0

    def send(self, party: str) -> int:
        """``party`` sends a DM-key-entry-shaped plaintext; returns the send index."""
        index = len(self.sends)
        plaintext = b"\x01" + secret(f"{self.prefix}/pt/{index}") + secret(f"{self.prefix}/pt2/{index}")
        nonce = secret(f"{self.prefix}/nonce/{index}")[:12]
        message = self.parties[party].send(plaintext, nonce)
        self.sends.append(message)
        self.events.append({"event": "send", "party": party, "index": index, "plaintext": plaintext.hex(),
                            "nonce": nonce.hex(), "message": message.hex()})
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
    c.reject("bob", 2, "truncated", c.sends[2][:68])           # truncated
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
