#!/usr/bin/env python3
"""What each of the store's timeline indexes costs an insert, outside Swift.

Inserts 80,000 rows shaped like received timeline rows (UUID text ids, a 32-byte content
hash, ~1.1 KB of sealed bytes) into a fresh SQLite file with the store's settings (WAL,
synchronous NORMAL, an 8 MiB page cache, checkpoints every 10,000 pages) and prints the
process CPU per row (user + system) for each index set and transaction size. Python's own
per-row cost (~3 µs) is in every line, so compare lines with each other, not with Swift.

    taskset -c 0 python3 Benchmarks/timeline-indexes.py
"""
import hashlib
import os
import resource
import tempfile
import uuid

ROWS = 80_000
PAGE = "CREATE INDEX timeline_page ON timeline(channel_id, created_at, message_id);"
PAIR = "CREATE UNIQUE INDEX timeline_payload_id ON timeline(sender_user_id, payload_id) WHERE payload_id IS NOT NULL;"
KEY = "CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL;"
CONTENT = "CREATE INDEX timeline_by_content_prefix ON timeline(substr(content_hash, 1, 8));"
V13 = PAGE + PAIR + CONTENT
V14 = PAGE + KEY + CONTENT


def make_rows():
    channels = [str(uuid.uuid4()) for _ in range(4)]
    users = [str(uuid.uuid4()) for _ in range(8)]
    rows = []
    for i in range(ROWS):
        user, payload = users[i % 8], str(uuid.uuid4())
        key = hashlib.sha256((user + "\0" + payload).encode()).digest()[:16]
        rows.append((str(uuid.uuid4()), channels[i % 4], user, str(i % 8), 1_700_000_000_000_000 + i * 1000,
                     os.urandom(32), os.urandom(1100), payload, key))
    return rows


def run(label, rows, indexes, per_transaction, primary_key="message_id TEXT PRIMARY KEY"):
    import sqlite3
    with tempfile.TemporaryDirectory() as directory:
        db = sqlite3.connect(os.path.join(directory, "t.sqlite"), isolation_level=None)
        for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "cache_size = -8192", "wal_autocheckpoint = 10000"):
            db.execute("PRAGMA " + pragma)
        db.execute(f"""CREATE TABLE timeline ({primary_key}, channel_id TEXT NOT NULL, sender_user_id TEXT,
                       sender_device_id TEXT, created_at INTEGER NOT NULL, content_hash BLOB NOT NULL, plaintext BLOB,
                       payload_id TEXT, payload_key BLOB)""")
        db.executescript(indexes)
        before = resource.getrusage(resource.RUSAGE_SELF)
        for first in range(0, len(rows), per_transaction):
            db.execute("BEGIN")
            db.executemany("""INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at,
                              content_hash, plaintext, payload_id, payload_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                           rows[first:first + per_transaction])
            db.execute("COMMIT")
        after = resource.getrusage(resource.RUSAGE_SELF)
        db.close()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"| {label} | {per_transaction:,} | {cpu / len(rows) * 1e6:.1f} µs |", flush=True)


def main():
    rows = make_rows()
    print("| indexes | rows a transaction | CPU per row |")
    print("|---|---:|---:|")
    run("primary key only (the floor's table)", rows, "", 10_000)
    run("primary key only", rows, "", 150)
    run("v13: page, (sender, payload id) pair, content prefix", rows, V13, 150)
    run("v14: page, 16-byte payload key, content prefix", rows, V14, 150)
    run("v14 without the page index", rows, KEY + CONTENT, 150)
    run("v14 without the payload key", rows, PAGE + CONTENT, 150)
    run("v14 without the content prefix", rows, PAGE + KEY, 150)
    run("v14, no primary key on the server id", rows, V14, 150, primary_key="message_id TEXT")
    for size in (1_000, 10_000):
        run("v14", rows, V14, size)


if __name__ == "__main__":
    main()
