"""Every limit of PROTOCOL.md in one place (§3, §4, §6, §7, §8)."""

MAX_CONTENT_BASE64_LENGTH = 524_288      # §8, checked before decoding
RECIPIENTS_MIN, RECIPIENTS_MAX = 1, 1_000  # §5/§8, checked before any entry is read
MAX_PAYLOAD_BYTES = 65_536               # §6/§8
CIPHERTEXT_MIN, CIPHERTEXT_MAX = 16, 65_552  # §8: DM payload_ct and group ct
MIN_PAIRWISE_MESSAGE = 69                # §8: 1 + 52-byte header + 16-byte tag
MAX_RATCHET_SKIP = 1_000                 # §3, per chain, per message
MAX_STORED_SKIPPED_KEYS = 2_000          # §3, per ratchet state, oldest inserted dropped
MAX_ARCHIVED_SESSIONS = 5                # §3
MAX_SENDER_KEY_JUMP = 2_000              # §4
MAX_STORED_SENDER_KEY_SKIPPED = 2_000    # §4, highest iterations kept
SAFETY_NUMBER_REPEATS = 5_199            # §7, after the first hash
MAX_SAFE_INTEGER = 2**53 - 1             # §6, upper bound of ts
MAX_LINK_PAIRWISE_MESSAGE = 70_000       # §8.9: a link envelope's pairwise message
MAX_LINK_CHUNK_PLAINTEXT = 69_000        # §8.9: a chunk plaintext, type and kind bytes included
MAX_TRANSFER_RECORD_LEN = 65_609         # §8.9: a transfer record's len, checked before its body
