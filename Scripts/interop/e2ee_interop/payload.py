"""The message payload (PROTOCOL.md §6): a strict parser and the canonical encoder.

Refused: more than 64 KiB, a byte-order mark, invalid UTF-8, anything that is not a JSON
object, duplicate keys at any depth, lone surrogates anywhere (keys or values, any depth),
NaN/Infinity, ``v`` other than the JSON integer 1, ``ts`` that is not a JSON integer in
[0, 2^53−1] (a fraction or exponent makes it not an integer; ``-0`` is 0), ``id`` that is not a
lower-case UUID, a missing or non-string ``text``, a non-string ``edit_of``/``reply_to``/``with``, and
the edit rules (post: no ``edit_of``; edit: ``edit_of`` equal to the edited message's id).
Control payloads (§5.15, §6.7) have empty ``text``: a tombstone's ``delete_of`` is a lower-case
UUID; an announcement is exactly one of ``added``/``approved``/``declined``/``accepted``, a list
of at most 1,000 distinct lower-case UUIDs; a payload is not both, never carries ``edit_of``,
and is never an edit. Unknown keys are ignored.
"""

import json
from typing import Optional

from . import limits
from .errors import ProtocolError, limit, malformed
from .wire import is_uuid_text

BOM = b"\xef\xbb\xbf"
ENCODED_KEYS = ("v", "id", "ts", "text", "edit_of", "reply_to", "with", "delete_of")
ANNOUNCEMENT_KEYS = ("added", "approved", "declined", "accepted")
MAX_ANNOUNCEMENT_IDS = 1000


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise malformed("payload", "duplicate key")
        obj[key] = value
    return obj


def _reject_constant(_name):
    raise malformed("payload", "NaN or Infinity")


def _has_lone_surrogate(value) -> bool:
    """json keeps an unpaired \\uD800-\\uDFFF escape as a surrogate code point; paired ones
    are combined, so any surrogate left in a decoded string was lone."""
    if isinstance(value, str):
        return any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def _is_json_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_payload(data: bytes, context: str = "post", message_id: Optional[str] = None) -> dict:
    """Parse payload bytes → ``{"id", "ts", "text", "edit_of"?, "reply_to"?}`` or raise.

    ``context`` is ``"post"`` or ``"edit"``; for an edit ``message_id`` is the edited message."""
    data = bytes(data)
    if len(data) > limits.MAX_PAYLOAD_BYTES:
        raise limit("payload", limits.MAX_PAYLOAD_BYTES, len(data))
    if data.startswith(BOM):
        raise malformed("payload", "byte-order mark")
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        raise malformed("payload", "invalid UTF-8") from error
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except ProtocolError:
        raise
    except (ValueError, RecursionError) as error:
        raise malformed("payload", "not JSON") from error
    if not isinstance(obj, dict):
        raise malformed("payload", "not a JSON object")
    if _has_lone_surrogate(obj):
        raise malformed("payload", "lone surrogate")
    version = obj.get("v")
    if not _is_json_integer(version) or version != 1:
        raise ProtocolError("unsupportedVersion", "payload v")
    ts = obj.get("ts")
    if not _is_json_integer(ts) or not 0 <= ts <= limits.MAX_SAFE_INTEGER:
        raise malformed("payload", "ts")
    if not is_uuid_text(obj.get("id")):
        raise malformed("payload", "id")
    if not isinstance(obj.get("text"), str):
        raise malformed("payload", "text")
    for key in ("edit_of", "reply_to", "with"):
        if key in obj and not isinstance(obj[key], str):
            raise malformed("payload", key)
    if "delete_of" in obj and not is_uuid_text(obj["delete_of"]):
        raise malformed("payload", "delete_of")
    lists = [key for key in ANNOUNCEMENT_KEYS if key in obj]
    if len(lists) > 1:
        raise malformed("payload", "more than one announcement list")
    for key in lists:
        ids = obj[key]
        if not isinstance(ids, list) or len(ids) > MAX_ANNOUNCEMENT_IDS:
            raise malformed("payload", key)
        if not all(is_uuid_text(item) for item in ids) or len(set(ids)) != len(ids):
            raise malformed("payload", key)
    if "delete_of" in obj or lists:
        if "delete_of" in obj and lists:
            raise malformed("payload", "tombstone and announcement at once")
        if obj["text"] != "":
            raise malformed("payload", "control payload with text")
        if "edit_of" in obj:
            raise malformed("payload", "control payload with edit_of")
    if context == "post":
        if "edit_of" in obj:
            raise malformed("payload", "edit_of in posted content")
    elif context == "edit":
        if obj.get("edit_of") != message_id:
            raise malformed("payload", "edit_of differs from the edited message")
    else:
        raise malformed("payload", "unknown context")
    return {key: obj[key] for key in ENCODED_KEYS[1:] + ANNOUNCEMENT_KEYS if key in obj}


def encode_payload(fields: dict) -> bytes:
    """The canonical encoding: keys v, id, ts, text, edit_of, reply_to, with, delete_of, then the
    announcement list (those present), no
    whitespace, ``json.dumps(ensure_ascii=False, separators=(",", ":"))`` escaping, UTF-8."""
    ordered = {"v": 1}
    for key in ENCODED_KEYS[1:] + ANNOUNCEMENT_KEYS:
        if key in fields:
            ordered[key] = fields[key]
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
