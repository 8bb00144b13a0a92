"""Sender-key chain samples."""

from e2ee_interop import sender_key

from .common import flip, secret


def _chain_items(chain_key: bytes, iterations):
    items, next_iteration = [], 0
    for iteration in iterations:
        for _ in range(iteration - next_iteration):
            _, chain_key = sender_key.chain_step(chain_key)
        message_key, chain_key = sender_key.chain_step(chain_key)
        items.append({"iteration": iteration, "messageKey": message_key.hex(),
                      "aesKey": sender_key.message_aead_key(message_key).hex(), "nextChainKey": chain_key.hex()})
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
