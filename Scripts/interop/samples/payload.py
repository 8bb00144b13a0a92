"""Payload samples: accepted payloads with their canonical encoding, and every §6 refusal."""

from e2ee_interop.payload import encode_payload, parse_payload

from .common import refused_as, sample_uuid


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
        ("a DM payload names the other participant (with)", "post", None,
         f'{{"v":1,"id":"{mid}","ts":2,"text":"hi","with":"{reply}"}}'.encode()),
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
        ("WithNotString", "with = 5", "post", None, f'{{"v":1,{base},"with":5}}'.encode()),
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
