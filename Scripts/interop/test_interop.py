#!/usr/bin/env python3
"""Self-test of the independent Python implementation and of the vector verifier.

Run with ``python3 -m pytest Scripts/interop/test_interop.py`` or plainly with
``python3 Scripts/interop/test_interop.py``. It

1. checks the building blocks against published known answers (RFC 5869 A.1 through the HKDF
   wrapper, RFC 4231, RFC 7748 §6.1, RFC 8032 §7.1, and — when present — every case of the
   repository's published primitive vector files), the §0 low-order lists, and libsodium's
   Ed25519 rules (small-order keys and R, S ≥ L);
2. checks Double Ratchet limits directly (skip of 1000 accepted / 1001 refused, 2000 stored
   keys with the oldest dropped, atomic refusal, prekey form until the first decrypt);
3. generates the self-check samples into a temporary folder, verifies they pass, then mutates
   one output of each kind (message byte, signature, ciphertext, safety-number digit, a
   user-key fingerprint and scannable form, envelope byte, content, shared secret, chain key,
   payload encoding, an invalid case made acceptable) and checks the verifier reports the
   failure; plus layout, missing and unknown algorithms.
"""

import copy
import io
import json
import shutil
import sys
import tempfile
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import make_sample_vectors  # noqa: E402
import verify_protocol_vectors  # noqa: E402
from e2ee_interop import edwards, keys, primitives, ratchet  # noqa: E402
from e2ee_interop.errors import ProtocolError  # noqa: E402
from samples import Conversation  # noqa: E402
from samples.common import secret  # noqa: E402

PUBLISHED = HERE.parents[1] / "TestVectors"


def _refused(action) -> str:
    try:
        action()
    except ProtocolError as error:
        return error.case
    raise AssertionError("accepted, expected a refusal")


# 1. Known answers ------------------------------------------------------------------------------

def test_hkdf_rfc5869_a1():
    okm = primitives.hkdf(bytes.fromhex("000102030405060708090a0b0c"), b"\x0b" * 22,
                          bytes.fromhex("f0f1f2f3f4f5f6f7f8f9"), 42)
    assert okm.hex() == ("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                         "34007208d5b887185865")


def test_hmac_rfc4231_case2():
    tag = primitives.hmac_sha256(b"Jefe", b"what do ya want for nothing?")
    assert tag.hex() == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"


def test_x25519_rfc7748_6_1():
    alice = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    bob_public = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    assert primitives.x25519_public(alice).hex() == \
        "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
    assert primitives.x25519(alice, bob_public).hex() == \
        "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"


def test_ed25519_rfc8032_test1():
    seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    public = primitives.ed25519_public(seed)
    assert public.hex() == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    signature = primitives.ed25519_sign(seed, b"")
    assert signature.hex() == ("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                               "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    assert primitives.ed25519_verify(public, b"", signature)


def test_sha2_and_aes_gcm_known_answers():
    assert primitives.sha256(b"abc").hex() == \
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert primitives.sha512(b"abc").hex().startswith("ddaf35a193617aba")
    # NIST GCM test case 13 (256-bit zero key, zero IV, empty input): tag only.
    assert primitives.aead_seal(bytes(32), bytes(12), b"", b"").hex() == "530f8afbc74536b9a963b4f1c4cb738b"


def _published(name):
    path = PUBLISHED / name
    if not path.exists():
        return []
    data = json.loads(path.read_text())
    return [(group, test) for group in data["testGroups"] for test in group["tests"]]


def test_primitives_against_published_vector_files():
    """Every case of the repository's published HKDF, HMAC, X25519, Ed25519, AES-GCM files."""
    ran = 0
    for _, t in _published("hkdf_sha256_rfc5869_test.json"):
        ran += 1
        try:
            okm = primitives.hkdf(bytes.fromhex(t["salt"]), bytes.fromhex(t["ikm"]),
                                  bytes.fromhex(t["info"]), t["size"])
            assert t["result"] == "valid" and okm.hex() == t["okm"]
        except ValueError:
            assert t["result"] == "invalid"
    for group, t in _published("hmac_sha256_rfc4231_test.json"):
        ran += 1
        tag = primitives.hmac_sha256(bytes.fromhex(t["key"]), bytes.fromhex(t["msg"]))
        assert (tag[:group["tagSize"] // 8].hex() == t["tag"]) == (t["result"] == "valid")
    for _, t in _published("x25519_rfc7748_test.json"):
        ran += 1
        assert primitives.x25519(bytes.fromhex(t["private"]), bytes.fromhex(t["public"])).hex() == t["shared"]
    for group, t in _published("ed25519_rfc8032_test.json") + _published("ed25519_sign_input_test.json"):
        ran += 1
        ok = primitives.ed25519_verify(bytes.fromhex(group["publicKey"]["pk"]), bytes.fromhex(t["msg"]),
                                       bytes.fromhex(t["sig"]))
        assert ok == (t["result"] == "valid"), t["tcId"]
    for _, t in _published("aes_256_gcm_nist_cavp_test.json"):
        ran += 1
        key, iv, aad = (bytes.fromhex(t[k]) for k in ("key", "iv", "aad"))
        try:
            plain = primitives.aead_open(key, iv, bytes.fromhex(t["ct"] + t["tag"]), aad)
            assert t["result"] == "valid" and plain.hex() == t["msg"]
        except ProtocolError:
            assert t["result"] == "invalid"
    if PUBLISHED.exists():
        assert ran > 1000


def test_x25519_low_order_list_gives_zero_output():
    """The §0 list: each point makes X25519 output zero (refused), and is refused on receipt."""
    assert len(keys.LOW_ORDER_X25519) == 5
    for point in keys.LOW_ORDER_X25519:
        assert _refused(lambda: primitives.x25519(secret("scalar"), point)) == "allZeroSharedSecret"
        assert _refused(lambda: keys.check_x25519_public(point, "test")) == "invalidKey"
    p = 2**255 - 19
    for value in (p, p + 1, 2**255 - 1):
        assert _refused(lambda: keys.check_x25519_public(value.to_bytes(32, "little"), "t")) == "invalidKey"
    good = primitives.x25519_public(secret("scalar"))
    assert _refused(lambda: keys.check_x25519_public(good[:31] + bytes([good[31] | 0x80]), "t")) == "invalidKey"
    assert keys.check_x25519_public(good, "t") == good


def test_ed25519_libsodium_rules():
    """libsodium's blacklist encodings are small order; S ≥ L, small-order A or R refused."""
    blacklist = ["00" * 32, "01" + "00" * 31,
                 "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
                 "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
                 "ec" + "ff" * 30 + "7f", "ed" + "ff" * 30 + "7f", "ee" + "ff" * 30 + "7f"]
    for encoding in blacklist:
        raw = bytes.fromhex(encoding)
        assert edwards.has_small_order(raw)
        assert edwards.has_small_order(raw[:31] + bytes([raw[31] | 0x80]))
    seed = secret("ed")
    public = primitives.ed25519_public(seed)
    assert not edwards.has_small_order(public) and edwards.is_valid_public_key(public)
    signature = primitives.ed25519_sign(seed, b"m")
    assert primitives.ed25519_verify(public, b"m", signature)
    s_plus_l = (int.from_bytes(signature[32:], "little") + edwards.L).to_bytes(32, "little")
    assert not primitives.ed25519_verify(public, b"m", signature[:32] + s_plus_l)
    # A = neutral point and R = neutral point, S = 0: the equation holds; libsodium refuses.
    neutral = bytes.fromhex(blacklist[1])
    assert not primitives.ed25519_verify(neutral, b"m", neutral + bytes(32))
    assert _refused(lambda: keys.check_ed25519_public(neutral, "t")) == "invalidKey"
    assert _refused(lambda: keys.check_ed25519_public(bytes.fromhex("ed" + "ff" * 30 + "7f"), "t")) == "invalidKey"


def test_prime_order_subgroup_check():
    # §0.8: B is in the prime-order subgroup; B + T (T of order 8) decodes, is not of small
    # order, and is refused when parsed as a key; a small-order point is not in the subgroup.
    base = bytes.fromhex("58" + "66" * 31)
    torsion = bytes.fromhex("da99e28ba529cdde35a25fba9059e78ecaee239f99755b9b1aa4f65df00803e2")
    assert edwards.in_prime_order_subgroup(base) and keys.check_ed25519_public(base, "t") == base
    assert edwards.is_valid_public_key(torsion) and not edwards.in_prime_order_subgroup(torsion)
    assert _refused(lambda: keys.check_ed25519_public(torsion, "t")) == "invalidKey"
    assert not edwards.in_prime_order_subgroup(bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"))
    assert edwards.in_prime_order_subgroup(primitives.ed25519_public(secret("ed")))


def _record_device(label: str):
    """A device's blob, SIG seed, SPK scalar, and two UUIDs (user, device)."""
    from samples.common import sample_uuid
    from e2ee_interop.wire import uuid_bytes
    blob = keys.identity_blob(secret(label + "/ik"), secret(label + "/sig"))
    return (blob, secret(label + "/sig"), secret(label + "/spk"),
            uuid_bytes(sample_uuid(label + "/user")), uuid_bytes(sample_uuid(label + "/device")))


def test_record_certificate_and_section_10_3():
    blob, sig, spk, user, device = _record_device("t-record")
    umk = secret("t-record/umk")
    cert = keys.issue_certificate(umk, user, device, blob, 5, 1_766_000_000)
    record = keys.signed_prekey_record(9, spk, cert)
    assert len(cert) == 104 and len(record) == 141 and record[0] == 0x02 and record[37:] == cert
    bundle = keys.verify_bundle(blob, record, keys.sign_signed_prekey(sig, record))
    assert bundle.certified_for(user, device)
    assert not bundle.certified_for(device, device) and not bundle.certified_for(user, user)
    zero = keys.signed_prekey_record(9, spk)
    assert not keys.verify_bundle(blob, zero, keys.sign_signed_prekey(sig, zero)).certified_for(user, device)
    # Refusals: 1.2's form, lengths, the old label, epochs, a zero user key in a non-zero cert.
    v1 = b"\x01" + zero[1:37]
    assert _refused(lambda: keys.verify_bundle(blob, v1, primitives.ed25519_sign(sig, b"e2ee-spk-v1" + v1))) == "unsupportedVersion"
    assert _refused(lambda: keys.parse_signed_prekey_record(zero[:-1])) == "truncated"
    assert _refused(lambda: keys.parse_signed_prekey_record(zero + b"\x00")) == "trailingBytes"
    assert _refused(lambda: keys.verify_bundle(blob, zero, primitives.ed25519_sign(sig, b"e2ee-spk-v1" + zero))) == "badSignature"
    for epoch in (0, 2**32 - 1):
        assert _refused(lambda: keys.parse_certificate(cert[:32] + epoch.to_bytes(4, "big") + cert[36:])) == "malformed"
        assert _refused(lambda: keys.issue_certificate(umk, user, device, blob, epoch, 1)) == "malformed"
    assert keys.parse_certificate(cert[:32] + (2**32 - 2).to_bytes(4, "big") + cert[36:]).epoch == 2**32 - 2
    assert _refused(lambda: keys.parse_certificate(bytes(32) + cert[32:])) == "invalidKey"
    assert keys.parse_certificate(bytes(104)) is None


def test_mint_certificate_command():
    import subprocess
    blob, sig, spk, user, device = _record_device("t-mint")
    from e2ee_interop.wire import uuid_text
    base = [sys.executable, str(HERE / "mint_certificate.py"), "--identity-blob", blob.hex(),
            "--user-id", uuid_text(user), "--device-id", uuid_text(device),
            "--user-key-seed", secret("t-mint/umk").hex(), "--epoch", "3", "--not-after", "1766000000"]
    run = subprocess.run(base, capture_output=True, text=True, check=True)
    minted = json.loads(run.stdout)
    assert set(minted) == {"certificate", "user_key"}
    cert = bytes.fromhex(minted["certificate"])
    assert cert == keys.issue_certificate(secret("t-mint/umk"), user, device, blob, 3, 1_766_000_000)
    record_args = ["--spk-id", "7", "--spk-private", spk.hex(), "--signing-seed", sig.hex()]
    whole = json.loads(subprocess.run(base + record_args, capture_output=True, text=True, check=True).stdout)
    from e2ee_interop.wire import b64decode_canonical
    record = b64decode_canonical(whole["signed_pre_key"], 255)
    assert record.hex() == whole["record"] and record == keys.signed_prekey_record(7, spk, cert)
    signature = b64decode_canonical(whole["signed_pre_key_signature"], 255)
    assert keys.verify_bundle(blob, record, signature).certified_for(user, device)
    # Another device's SIG seed, or an epoch out of range: refused, exit 2, no output.
    for bad in (base + ["--spk-id", "7", "--spk-private", spk.hex(), "--signing-seed", secret("x").hex()],
                [a if a != "3" else "0" for a in base]):
        refused = subprocess.run(bad, capture_output=True, text=True)
        assert refused.returncode == 2 and refused.stdout == "" and "mint_certificate" in refused.stderr


def test_safety_number_under_a_user_key():
    # §10.18 (B.5), recomputed here with hashlib alone: h = SHA-512(0x00 0x01 || K || uid), then
    # 5199 times h = SHA-512(h || K); the digits and the scannable form as §7.4 and §7.6.
    import hashlib
    from e2ee_interop import safety_number as sn
    user_id = "0A1B2C3D-4E5F-4A6B-8C7D-8E9F00112233"
    key = primitives.ed25519_public(bytes(range(32)))
    h = hashlib.sha512(b"\x00\x01" + key + user_id.lower().encode()).digest()
    for _ in range(5199):
        h = hashlib.sha512(h + key).digest()
    assert sn.user_key_hash(user_id, key) == h
    assert sn.fingerprint_under_user_key(user_id, key) == "442997626414285936234972395797"
    assert sn.fingerprint_under_user_key(user_id.lower(), key) == sn.fingerprint_under_user_key(user_id, key)
    # The user-key half is not the device half of a device whose key is the same bytes.
    blob = keys.identity_blob(secret("t-sn/ik"), bytes(range(32)))
    assert sn.fingerprint(user_id, [blob]) != sn.fingerprint_under_user_key(user_id, key)
    other = sn.user_key_hash("ffffffff-0000-4000-8000-000000000000", key)
    assert sn.scannable_form(h, other) == b"\x01" + h[:32] + other[:32]
    assert _refused(lambda: sn.user_key_hash(user_id, key[:31])) == "malformed"
    assert _refused(lambda: sn.user_key_hash(user_id, key + b"\x00")) == "malformed"
    assert _refused(lambda: sn.user_key_hash(user_id, bytes(32))) == "invalidKey"   # §0.8: the strict side
    assert _refused(lambda: sn.device_hash(user_id, [])) == "malformed"


def test_base64_is_canonical():
    from e2ee_interop.wire import b64decode_canonical
    assert b64decode_canonical("QQ==") == b"A"
    for bad in ("QR==", "QQ", "QQ=", " QQ==", "QQ==\n", "-_8=", "Q===", "QQ=A"):
        assert _refused(lambda: b64decode_canonical(bad)) in ("malformed", "limitExceeded")
    assert _refused(lambda: b64decode_canonical("A" * 524_292)) == "limitExceeded"


# 2. Double Ratchet limits ----------------------------------------------------------------------

def _pair(label: str):
    conversation = Conversation(label, 5)
    return conversation.parties["alice"], conversation.parties["bob"]


def _key(label):
    counter = iter(range(10**6))
    return lambda: secret(f"{label}/{next(counter)}")


def test_prekey_form_until_first_decrypt_and_bob_waits():
    alice, bob = _pair("t-form")
    assert _refused(lambda: bob.send(b"x")) == "unknownSession"
    first = alice.send(b"one")
    assert first[0] == 0x02 and alice.send(b"two")[0] == 0x02
    assert bob.receive(first, _key("b"))[0] == b"one"
    reply = bob.send(b"reply")
    assert reply[0] == 0x01
    assert alice.receive(reply, _key("a"))[0] == b"reply"
    assert alice.send(b"three")[0] == 0x01


def test_skip_limit_is_1000_per_chain():
    alice, bob = _pair("t-skip")
    messages = [alice.send(b"%d" % i) for i in range(1002)]
    before = bob.state
    assert _refused(lambda: bob.receive(messages[1001], _key("b"))) == "tooFarAhead"
    assert bob.state is before
    assert bob.receive(messages[1000], _key("b"))[0] == b"1000"   # skips exactly 1000
    assert bob.receive(messages[0], _key("b"))[0] == b"0"


def test_stored_skipped_keys_capped_at_2000_oldest_dropped():
    alice, bob = _pair("t-cap")
    akey, bkey = _key("a"), _key("b")
    first_chain = None
    for round_number in range(3):
        sent = [alice.send(b"r%d-%d" % (round_number, i)) for i in range(1001)]
        first_chain = first_chain or sent
        bob.receive(sent[-1], bkey)
        if round_number == 1:
            second_chain = sent
        alice.receive(bob.send(b"turn"), akey)
    stored = bob.state.current.ratchet.skipped
    assert len(stored) == 2000
    assert _refused(lambda: bob.receive(first_chain[0], bkey)) in ("badTag", "duplicate")
    assert bob.receive(second_chain[0], bkey)[0] == b"r1-0"


def test_refusal_is_atomic():
    alice, bob = _pair("t-atomic")
    message = alice.send(b"payload")
    snapshot = copy.deepcopy(bob.state)
    tampered = message[:-1] + bytes([message[-1] ^ 1])
    assert _refused(lambda: bob.receive(tampered, _key("b"))) == "badTag"
    assert repr(bob.state) == repr(snapshot)
    assert bob.receive(message, _key("b"))[0] == b"payload"
    assert _refused(lambda: bob.receive(message, _key("b"))) == "duplicate"


def test_kdf_building_blocks_follow_the_spec():
    ck = secret("ck")
    mk, next_ck = ratchet.kdf_ck(ck)
    assert mk == primitives.hmac_sha256(ck, b"\x01") and next_ck == primitives.hmac_sha256(ck, b"\x02")
    root, chain = ratchet.kdf_rk(secret("rk"), secret("dh"))
    assert root + chain == primitives.hkdf(secret("rk"), secret("dh"), b"e2ee-ratchet-v1", 64)


def test_replay_after_the_session_left_the_archive():
    """EK_A stays in the accepted set after its session is dropped (5 archived): replay."""
    from samples import x3dh_inputs
    from e2ee_interop.checks.double_ratchet import _parties
    from e2ee_interop import keys as k
    inputs = x3dh_inputs("t-replay", 9)
    inputs["aliceInitialRatchetPrivate"] = secret("t-replay/r0").hex()
    bob = _parties(inputs)["bob"]
    first = None
    for number in range(7):  # seven sessions from the same Alice device, fresh EK_A each
        alice = _parties(dict(inputs, ephemeralPrivate=secret(f"t-replay/ek/{number}").hex(),
                              aliceInitialRatchetPrivate=secret(f"t-replay/r/{number}").hex()))["alice"]
        message = alice.send(b"m%d" % number)
        first = first or message
        assert bob.receive(message, _key(f"b{number}"))[0] == b"m%d" % number
        if number == 0:
            assert _refused(lambda: bob.receive(message, _key("x"))) == "duplicate"
    assert len(bob.state.archived) == 5
    assert _refused(lambda: bob.receive(first, _key("x"))) == "replay"
    assert k.identity_blob(bytes.fromhex(inputs["initiatorIdentityPrivate"]),
                           bytes.fromhex(inputs["initiatorSigningSeed"])) == bob.state.pinned_peer


def test_sender_key_jump_limits():
    from e2ee_interop import sender_key
    ck = secret("t-sk")
    chain = ck
    for _ in range(2000):
        _, chain = sender_key.chain_step(chain)
    assert sender_key.derive(ck, 0, 2000) == sender_key.chain_step(chain)
    assert _refused(lambda: sender_key.derive(ck, 0, 2001)) == "tooFarAhead"
    assert _refused(lambda: sender_key.derive(ck, 5, 4)) == "tooOld"


def test_canonical_payload_encoding_known_answer():
    from e2ee_interop.payload import encode_payload, parse_payload
    mid = "0a1b2c3d-0000-4000-8000-00000000abcd"
    fields = {"id": mid, "ts": 7, "text": 'a"\\\n\u2028\u00e9\U0001F600\x01/', "reply_to": mid, "edit_of": mid}
    expected = ('{"v":1,"id":"' + mid + '","ts":7,"text":"a\\"\\\\\\n\u2028\u00e9\U0001F600\\u0001/",'
                '"edit_of":"' + mid + '","reply_to":"' + mid + '"}').encode("utf-8")
    assert encode_payload(fields) == expected
    assert parse_payload(expected, "edit", mid) == fields


# 3. The verifier on samples --------------------------------------------------------------------

def _verify(directory, *flags):
    out = io.StringIO()
    with redirect_stdout(out):
        status = verify_protocol_vectors.main([str(directory), *flags])
    return status, out.getvalue()


def _samples(tmp: Path) -> Path:
    make_sample_vectors.write_samples(tmp)
    return tmp


def _mutate(directory: Path, name: str, change) -> None:
    path = directory / name
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _flip_hex(value: str, index: int = 0) -> str:
    raw = bytearray(bytes.fromhex(value))
    raw[index] ^= 0x01
    return raw.hex()


def _first(data, group_type=None, result="valid"):
    for group in data["testGroups"]:
        if group_type in (None, group["type"]):
            for test in group["tests"]:
                if test["result"] == result:
                    return test
    raise AssertionError("no such test")


def _dr_send(data):
    return next(e for e in _first(data)["events"] if e["event"] == "send")


_UK = "SafetyNumberUserKeyTest"


def _upper_case_case(data):
    """The user-key case whose userA has upper-case letters."""
    return next(t for g in data["testGroups"] if g["type"] == _UK for t in g["tests"]
                if t["result"] == "valid" and t["userA"] != t["userA"].lower())


def _digits_without_lower_casing(test):
    """userA's B.5 digits computed over the user id as written (what the spec rules out)."""
    import hashlib
    key = bytes.fromhex(test["userKeyA"])
    h = hashlib.sha512(b"\x00\x01" + key + test["userA"].encode()).digest()
    for _ in range(5199):
        h = hashlib.sha512(h + key).digest()
    return "".join("%05d" % (int.from_bytes(h[i:i + 5], "big") % 100000) for i in range(0, 30, 5))


MUTATIONS = {
    "message byte": ("double_ratchet_test.json", lambda d: _dr_send(d).update(message=_flip_hex(_dr_send(d)["message"], 150))),
    "receive plaintext": ("double_ratchet_test.json", lambda d: next(
        e for e in _first(d)["events"] if e["event"] == "receive").update(plaintext="00")),
    "spk signature": ("x3dh_test.json", lambda d: _first(d).update(
        signedPrekeySignature=_flip_hex(_first(d)["signedPrekeySignature"], 5))),
    "shared secret": ("x3dh_test.json", lambda d: _first(d).update(sharedSecret=_flip_hex(_first(d)["sharedSecret"]))),
    "group signature": ("envelopes_test.json", lambda d: _first(d, "GroupEnvelopeTest").update(
        signature=_flip_hex(_first(d, "GroupEnvelopeTest")["signature"], 63))),
    "dm ciphertext": ("envelopes_test.json", lambda d: _first(d, "DmEnvelopeTest").update(
        payloadCiphertext=_flip_hex(_first(d, "DmEnvelopeTest")["payloadCiphertext"], 3))),
    "envelope byte": ("envelopes_test.json", lambda d: _first(d, "SkdEnvelopeTest").update(
        envelope=_flip_hex(_first(d, "SkdEnvelopeTest")["envelope"], 20))),
    "content": ("envelopes_test.json", lambda d: _first(d, "GroupEnvelopeTest").update(
        content="B" + _first(d, "GroupEnvelopeTest")["content"][1:])),
    "safety-number digit": ("safety_numbers_test.json", lambda d: _first(d).update(
        safetyNumber=("1" if _first(d)["safetyNumber"][0] != "1" else "2") + _first(d)["safetyNumber"][1:])),
    "user-key fingerprint digit": ("safety_numbers_test.json", lambda d: _first(d, _UK).update(
        fingerprintA=("1" if _first(d, _UK)["fingerprintA"][0] != "1" else "2") + _first(d, _UK)["fingerprintA"][1:])),
    "user-key scannable form byte": ("safety_numbers_test.json", lambda d: _first(d, _UK).update(
        scannableForm=_flip_hex(_first(d, _UK)["scannableForm"], 40))),
    "fingerprint of a user id not lower-cased": ("safety_numbers_test.json", lambda d: _upper_case_case(d).update(
        fingerprintA=_digits_without_lower_casing(_upper_case_case(d)))),
    "user key and blobs both given": ("safety_numbers_test.json", lambda d: _first(d, _UK).update(
        blobsA=_first(d, "SafetyNumberTest")["blobsA"])),
    "refused user key made acceptable": ("safety_numbers_test.json", lambda d: _first(d, _UK, "invalid").update(
        userKeyA=_first(d, _UK)["userKeyA"])),
    "chain key": ("sender_key_chain_test.json", lambda d: _first(d)["iterations"][2].update(
        nextChainKey=_flip_hex(_first(d)["iterations"][2]["nextChainKey"]))),
    "payload encoding": ("payload_test.json", lambda d: _first(d).update(encoded=_flip_hex(_first(d)["encoded"], 9))),
    "invalid made acceptable": ("x3dh_test.json", lambda d: _first(d, result="invalid").update(
        signedPrekeySignature=_first(d)["signedPrekeySignature"],
        signedPrekeyPublic=_first(d)["signedPrekeyPublic"],
        responderIdentityBlob=_first(d)["responderIdentityBlob"],
        oneTimePrekeyPublic=_first(d)["oneTimePrekeyPublic"])),
    "refused receive made acceptable": ("double_ratchet_test.json", lambda d: _drop_refusal_bytes(d)),
    "numberOfTests": ("payload_test.json", lambda d: d.update(numberOfTests=d["numberOfTests"] + 1)),
    "record byte": ("records_test.json", lambda d: _first(d).update(record=_flip_hex(_first(d)["record"], 20))),
    "certified flag": ("records_test.json", lambda d: d["testGroups"][0]["tests"][1].update(certified=False)),
    "refused record made acceptable": ("records_test.json", lambda d: _first(d, result="invalid").update(
        record=_first(d)["record"], recordSignature=_first(d)["recordSignature"])),
    "link code digit": ("link_test.json", lambda d: _first(d, "LinkCodeTest").update(
        codeN=("1" if _first(d, "LinkCodeTest")["codeN"][0] != "1" else "2") + _first(d, "LinkCodeTest")["codeN"][1:])),
    "link plaintext field": ("link_test.json", lambda d: _first(d, "LinkPlaintextTest")["fields"].update(kind="accept")),
    "refused link plaintext made acceptable": ("link_test.json", lambda d: _first(d, "LinkPlaintextTest", "invalid").update(
        plaintext=_first(d, "LinkPlaintextTest")["plaintext"])),
    "transfer record byte": ("link_test.json", lambda d: _first(d, "TransferRecordTest").update(
        record=_flip_hex(_first(d, "TransferRecordTest")["record"], 30))),
    "chunk digest": ("link_test.json", lambda d: _first(d, "TransferChunkTest").update(
        digest=_flip_hex(_first(d, "TransferChunkTest")["digest"], 3))),
    "altered primary_sig made to verify": ("link_test.json", lambda d: _first(d, "PrimarySignatureTest", "invalid").update(
        senderDeviceId=_first(d, "PrimarySignatureTest")["senderDeviceId"],
        recipientDeviceId=_first(d, "PrimarySignatureTest")["recipientDeviceId"])),
}


def _drop_refusal_bytes(data):
    """Turn the first 'altered bytes' refusal into a delivery of an untouched, fresh message."""
    events = _first(data)["events"]
    for event in events:
        if event.get("result") == "invalid" and event.get("failure") == "badTag" and "message" in event:
            del event["message"]  # now delivers the original send: it is accepted → must fail
            return
    raise AssertionError("no altered-bytes refusal")


def test_samples_pass_and_every_mutation_is_caught():
    with tempfile.TemporaryDirectory() as tmp:
        clean = _samples(Path(tmp) / "clean")
        status, output = _verify(clean, "--strict-failures")
        assert status == 0, output
        assert output.strip().endswith(" 0 failed")
        for algorithm in ("E2EE-X3DH", "E2EE-DOUBLE-RATCHET", "E2EE-SENDER-KEY", "E2EE-ENVELOPE",
                          "E2EE-PAYLOAD", "E2EE-SAFETY-NUMBER", "E2EE-SIGNED-PREKEY-RECORD", "E2EE-LINK"):
            assert f"interop: {algorithm} " in output
        for kind, (name, change) in MUTATIONS.items():
            mutated = Path(tmp) / kind.replace(" ", "-")
            shutil.copytree(clean, mutated)
            _mutate(mutated, name, change)
            status, output = _verify(mutated)
            assert status == 1, f"{kind}: not detected\n{output}"
            last = output.strip().splitlines()[-1]
            assert last.endswith("failed") and not last.endswith(" 0 failed"), f"{kind}: {last}"


def test_samples_are_deterministic():
    with tempfile.TemporaryDirectory() as tmp:
        first = make_sample_vectors.write_samples(Path(tmp) / "a")
        second = make_sample_vectors.write_samples(Path(tmp) / "b")
        for a, b in zip(first, second):
            assert a.read_bytes() == b.read_bytes()


def test_a_restored_state_never_repeats_a_key_and_nonce():
    # protocol text 1.2 §3.4: the same state sending twice uses one position, two nonces.
    alice, bob = _pair("t-restore")
    restored = copy.deepcopy(alice)
    first, second = alice.send(b"the merger closes on friday"), restored.send(b"lunch at noon, usual spot")
    header = slice(1 + 65 + 32 + 8 + 1, 1 + 65 + 32 + 8 + 1 + 52)   # the normal message's header
    assert first[header][:40] == second[header][:40]                   # same ratchet key, PN, N
    assert first[header][40:] != second[header][40:]                   # different nonces
    assert bob.receive(first, _key("b"))[0] == b"the merger closes on friday"
    assert _refused(lambda: bob.receive(second, _key("b"))) == "duplicate"


def test_missing_and_unknown_algorithms():
    with tempfile.TemporaryDirectory() as tmp:
        directory = _samples(Path(tmp))
        (directory / "payload_test.json").unlink()
        (directory / "future_test.json").write_text(json.dumps({"algorithm": "E2EE-FUTURE"}))
        status, output = _verify(directory)
        assert status == 1 and "no vectors ran for E2EE-PAYLOAD" in output
        assert "unknown algorithm 'E2EE-FUTURE'" in output
        status, output = _verify(directory, "--allow-missing")
        assert status == 0, output
        empty = Path(tmp) / "empty"
        empty.mkdir()
        assert _verify(empty)[0] == 1 and _verify(empty, "--allow-missing")[0] == 0


def test_no_key_material_in_failure_output():
    with tempfile.TemporaryDirectory() as tmp:
        directory = _samples(Path(tmp))
        data = json.loads((directory / "x3dh_test.json").read_text())
        test = _first(data)
        test["sharedSecret"] = _flip_hex(test["sharedSecret"])
        (directory / "x3dh_test.json").write_text(json.dumps(data))
        _, output = _verify(directory)
        for value in (test["sharedSecret"], test["initiatorIdentityPrivate"], test["ephemeralPrivate"]):
            assert value not in output


if __name__ == "__main__":
    failures = 0
    for name, function in sorted(globals().items()):
        if name.startswith("test_") and callable(function):
            try:
                function()
                print(f"ok   {name}")
            except Exception as error:  # noqa: BLE001
                failures += 1
                print(f"FAIL {name}: {type(error).__name__}: {error}")
    print(f"{failures} failed")
    sys.exit(1 if failures else 0)
