#!/usr/bin/env python3
"""Seeds from the committed protocol vectors (TestVectors/protocol): envelopes, their content
strings, recipient lists, pairwise messages and plaintexts, public key forms, bundles and
payload JSON, each written into the corpus folder of the target that decodes it.

usage: vectors_to_seeds.py VECTORS_DIR CORPUS_DIR
"""
import base64
import hashlib
import json
import os
import sys

vectors, corpus = sys.argv[1], sys.argv[2]


def seed(target, data):
    folder = os.path.join(corpus, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "vec-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def load(name):
    with open(os.path.join(vectors, name)) as f:
        return [test for group in json.load(f)["testGroups"] for test in group["tests"]]


b64 = lambda raw: base64.b64encode(raw).decode()

for test in load("envelopes_test.json"):
    content = test["content"]
    seed("fuzz-base64", content.encode())
    if "envelope" in test:
        envelope = bytes.fromhex(test["envelope"])
        seed("fuzz-envelope", envelope)
        if envelope[1] == 0x01:
            seed("fuzz-recipient-entries", b"\x00" + envelope[62:])
        if envelope[1] == 0x03:
            seed("fuzz-recipient-entries", b"\x01" + envelope[18:])
        if "skdPlaintext" in test:
            seed("fuzz-pairwise-plaintext", bytes.fromhex(test["skdPlaintext"]))
        if "payload" in test:
            seed("fuzz-payload-json", bytes.fromhex(test["payload"]))
        for recipient in test.get("recipients", []):
            seed("fuzz-pairwise-message", bytes.fromhex(recipient["pairwiseMessage"]))
            if recipient.get("entryPlaintext"):
                seed("fuzz-pairwise-plaintext", bytes.fromhex(recipient["entryPlaintext"]))
    else:
        try:
            seed("fuzz-envelope", base64.b64decode(content, validate=True))
        except ValueError:
            pass

for test in load("payload_test.json"):
    raw = bytes.fromhex(test["json"])
    seed("fuzz-payload-json", raw)
    seed("fuzz-json-differential", raw)

bundles = []
for test in load("x3dh_test.json"):
    for field, selector in (("initiatorIdentityBlob", 0), ("responderIdentityBlob", 0), ("signedPrekeyPublic", 1), ("oneTimePrekeyPublic", 2)):
        if test.get(field):
            raw = bytes.fromhex(test[field])
            seed("fuzz-published-keys", bytes([selector]) + raw)
            seed("fuzz-published-keys", b"\x03" + b64(raw).encode())
            seed("fuzz-base64", b64(raw).encode())
    if test.get("responderIdentityBlob") and test.get("signedPrekeyPublic") and test.get("signedPrekeySignature"):
        bundles.append({
            "device_id": "6f1c2d3e-4a5b-4c6d-8e7f-%012x" % len(bundles),
            "identity_key": b64(bytes.fromhex(test["responderIdentityBlob"])),
            "signed_pre_key": b64(bytes.fromhex(test["signedPrekeyPublic"])),
            "signed_pre_key_signature": b64(bytes.fromhex(test["signedPrekeySignature"])),
            "one_time_pre_key": b64(bytes.fromhex(test["oneTimePrekeyPublic"])) if test.get("oneTimePrekeyPublic") else None,
            "one_time_pre_key_count": 3,
        })
for test in load("records_test.json"):
    record = bytes.fromhex(test["record"])
    seed("fuzz-signed-prekey-record", b"\x00" + record)
    seed("fuzz-published-keys", b"\x01" + record)
    if len(record) >= 37:
        seed("fuzz-signed-prekey-record", b"\x01" + record[37:])
    if test["result"] == "valid":
        seed("fuzz-signed-prekey-record", b"\x02" + record[69:77])
    bundles.append({
        "device_id": test["deviceId"],
        "identity_key": b64(bytes.fromhex(test["identityBlob"])),
        "signed_pre_key": b64(record),
        "signed_pre_key_signature": b64(bytes.fromhex(test["recordSignature"])),
        "one_time_pre_key": None,
        "one_time_pre_key_count": 0,
    })
for test in load("link_test.json"):
    if "plaintext" in test:
        seed("fuzz-link-plaintext", b"\x00" + bytes.fromhex(test["plaintext"]))
        fields = test.get("fields") or {}
        if fields.get("kind") == "chunk":
            seed("fuzz-transfer-records", bytes.fromhex(fields["records"]))
    if "envelope" in test:
        seed("fuzz-link-plaintext", b"\x01" + bytes.fromhex(test["envelope"]))
    if "codeN" in test:
        seed("fuzz-link-plaintext", b"\x02" + bytes.fromhex(test["nonceN"]) + bytes.fromhex(test["nonceP"]) + test["codeN"].encode())
    if "record" in test:
        seed("fuzz-transfer-records", bytes.fromhex(test["record"]))
    if "chunk" in test:
        seed("fuzz-transfer-records", bytes.fromhex(test["chunk"]))
for index in range(0, len(bundles), 2):
    seed("fuzz-prekey-bundle", json.dumps(bundles[index:index + 2]).encode())

for test in load("double_ratchet_test.json"):
    for event in test.get("events", []):
        if event.get("message"):
            seed("fuzz-pairwise-message", bytes.fromhex(event["message"]))
