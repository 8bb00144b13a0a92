"""E2EE-PAYLOAD (group type PayloadTest): the strict parser and the canonical encoder.

valid: parsing ``json`` in its ``context`` must give ``fields``, and encoding them must give
``encoded``. invalid: parsing must be refused.
"""

from .. import payload
from .common import (VectorFailure, expect_equal, expect_group_type, expect_hex, expect_refused,
                     field, hexfield)

ALGORITHM = "E2EE-PAYLOAD"


def _parse(test: dict) -> dict:
    context = field(test, "context")
    if context not in ("post", "edit"):
        raise VectorFailure("context must be post or edit")
    message_id = test.get("messageId") if context == "edit" else None
    if context == "edit" and not isinstance(message_id, str):
        raise VectorFailure("an edit test needs messageId")
    return payload.parse_payload(hexfield(test, "json"), context, message_id)


def check(group: dict, test: dict) -> None:
    """Check one PayloadTest."""
    expect_group_type(group, "PayloadTest")
    if field(test, "result") == "invalid":
        expect_refused(lambda: _parse(test), "the payload", test.get("failure"))
        return
    fields = _parse(test)
    expect_equal("fields", field(test, "fields"), fields)
    expect_hex(test, "encoded", payload.encode_payload(fields))
