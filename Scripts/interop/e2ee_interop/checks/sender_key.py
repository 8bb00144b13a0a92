"""E2EE-SENDER-KEY (group type ChainTest): the sender-key chain from CK_0.

valid: every listed iteration's mk, AES key and next chain key must be reproduced (the nonce is
random per message, so the chain gives none).
invalid: at least one listed value must differ from the recomputed chain.
"""

from .. import sender_key
from .common import VectorFailure, expect_group_type, expect_hex, field, hexfield, intfield

ALGORITHM = "E2EE-SENDER-KEY"


def _verify_chain(test: dict) -> None:
    chain_key, next_iteration = hexfield(test, "chainKey"), 0
    items = field(test, "iterations")
    if not isinstance(items, list) or not items:
        raise VectorFailure("iterations must be a non-empty list")
    for item in items:
        iteration = intfield(item, "iteration")
        if iteration < next_iteration:
            raise VectorFailure("iterations must be increasing")
        for _ in range(iteration - next_iteration):
            _, chain_key = sender_key.chain_step(chain_key)
        message_key, chain_key = sender_key.chain_step(chain_key)
        where = f"iterations[{iteration}]"
        expect_hex(item, "messageKey", message_key, f"{where}.messageKey")
        expect_hex(item, "aesKey", sender_key.message_aead_key(message_key), f"{where}.aesKey")
        expect_hex(item, "nextChainKey", chain_key, f"{where}.nextChainKey")
        next_iteration = iteration + 1


def check(group: dict, test: dict) -> None:
    """Check one ChainTest."""
    expect_group_type(group, "ChainTest")
    if field(test, "result") == "valid":
        _verify_chain(test)
        return
    try:
        _verify_chain(test)
    except VectorFailure:
        return
    raise VectorFailure("the chain reproduces, but the vector says it is invalid")
