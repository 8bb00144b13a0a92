#!/usr/bin/env python3
"""What the size of a transaction costs an insert into the store's timeline schema, outside Swift.

Inserts 80,000 rows shaped like received timeline rows (UUID text ids, a 32-byte content hash,
~700 bytes of sealed plaintext, a 16-byte payload key led by 4 bytes naming the sender) into a
fresh SQLite file with the store's settings (WAL, synchronous NORMAL, an 8 MiB page cache,
checkpoints every 40 MB of WAL, secure_delete) and the indexes of schema v25 (`timeline_page`,
`timeline_by_channel_content`, `timeline_payload_key`, the primary key on the server id), for
each transaction size, and prints the process CPU per row (user + system) and the bytes it
wrote per row (`wchar`: WAL frames and checkpoint copies). A second table does the same at the
ingest's typical transaction size for other page sizes. Python's own per-row cost (~3 µs) is in
every line, so compare lines with each other, not with Swift.

    taskset -c 0 python3 Benchmarks/transaction-sizes.py

Why (issue 47): the floor that stores the rows inserts 10,000 rows a transaction; the ingest
commits per catch-up batch or frame, a few hundred rows or fewer. On random keys (the server
id, the envelope hash within a channel, the payload id within a sender) each transaction
rewrites most of the index leaves its rows touch, so the bytes written per row, and the CPU
that writes them, fall with the transaction's size until it covers the indexes' leaves.
"""
import hashlib
import os
import resource
import sqlite3
import tempfile
import uuid

ROWS = 80_000
INDEXES = """
CREATE INDEX timeline_page ON timeline(channel_id, created_at, message_id);
CREATE INDEX timeline_by_channel_content ON timeline(substr(channel_id, 1, 8), substr(content_hash, 1, 8));
CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL;
"""


def make_rows():
    channels = [str(uuid.uuid4()) for _ in range(10)]
    users = [str(uuid.uuid4()) for _ in range(10)]
    rows = []
    for i in range(ROWS):
        user, payload = users[i % 10], str(uuid.uuid4())
        key = hashlib.sha256(user.encode()).digest()[:4] + hashlib.sha256((user + "\0" + payload).encode()).digest()[:12]
        rows.append((str(uuid.uuid4()), channels[(i // 7) % 10], user, str(i % 10), 1_700_000_000_000_000 + i * 1000,
                     os.urandom(32), os.urandom(700), payload, key))
    return rows


def bytes_written():
    with open("/proc/self/io") as io:
        for line in io:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def run(rows, per_transaction, page_size=4096):
    with tempfile.TemporaryDirectory() as directory:
        db = sqlite3.connect(os.path.join(directory, "t.sqlite"), isolation_level=None)
        db.execute(f"PRAGMA page_size = {page_size}")
        for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "cache_size = -8192",
                       f"wal_autocheckpoint = {10_000 * 4096 // page_size}", "secure_delete = ON"):
            db.execute("PRAGMA " + pragma)
        db.execute("""CREATE TABLE timeline (message_id TEXT PRIMARY KEY, channel_id TEXT NOT NULL, sender_user_id TEXT,
                      sender_device_id TEXT, created_at INTEGER NOT NULL, content_hash BLOB NOT NULL, plaintext BLOB,
                      payload_id TEXT, payload_key BLOB)""")
        db.executescript(INDEXES)
        before, written = resource.getrusage(resource.RUSAGE_SELF), bytes_written()
        for first in range(0, len(rows), per_transaction):
            db.execute("BEGIN")
            db.executemany("INSERT INTO timeline VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows[first:first + per_transaction])
            db.execute("COMMIT")
        after, written = resource.getrusage(resource.RUSAGE_SELF), bytes_written() - written
        db.close()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    system = after.ru_stime - before.ru_stime
    print(f"| {page_size:,} | {per_transaction:,} | {cpu / len(rows) * 1e6:.1f} µs | {system / len(rows) * 1e6:.1f} µs "
          f"| {written / len(rows) / 1024:.1f} KB |", flush=True)


def main():
    rows = make_rows()
    print("| page size | rows a transaction | CPU per row | of it system | written per row |")
    print("|---:|---:|---:|---:|---:|")
    for size in (150, 300, 1_300, 2_500, 5_000, 10_000):
        run(rows, size)
    for page_size in (1024, 2048, 8192):
        run(rows, 300, page_size)


if __name__ == "__main__":
    main()
