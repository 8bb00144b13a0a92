#!/usr/bin/env python3
"""The timeline's dedupe indexes on the store a year of use has filled (issue 47), outside Swift.

Copies the cached year store (year-store.sh builds it: Benchmarks/.cache), gives the copy one
layout of the two dedupe indexes, then inserts 80,000 rows of 4 new channels from 10 senders with
the store's settings (WAL, synchronous NORMAL, secure_delete, an 8 MiB cache, checkpoints every
10,000 pages), N rows a transaction, and prints wall and CPU. Layouts:
  v21  the envelope-hash prefix alone, the payload key a digest of the pair (random keys)
  v25  (channel id's first 8 characters, envelope-hash prefix); the payload key led by 4 bytes
       naming the sender user (every stored key recomputed that way first)
  none neither index (the primary key and the page index only): what they cost together
And `empty`: the v25 schema with no rows, for scale.

    taskset -c 0 python3 year-indexes.py            # every layout, 150 rows a transaction
    taskset -c 0 python3 year-indexes.py v21 v25 --per 1000
"""
import glob, hashlib, os, shutil, sqlite3, sys, time, uuid

here = os.path.dirname(os.path.abspath(__file__))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
per = int(sys.argv[sys.argv.index("--per") + 1]) if "--per" in sys.argv else 150
args = [a for a in args if a != str(per)]
layouts = args or ["v21", "v25", "none", "empty"]
source = sorted(glob.glob(os.path.join(os.environ.get("INGEST_YEAR_CACHE", os.path.join(here, ".cache")), "year-store-v*.sqlite")))
if not source:
    sys.exit("no cached year store: run ./year-store.sh first")
path = "/tmp/e2ee-year-indexes.sqlite"

def sender_part(user):
    return hashlib.sha256(b"e2ee payload key sender v25" + user.encode()).digest()[:4]

def pair(user, payload):
    return hashlib.sha256(b"e2ee payload key v1" + len(user.encode()).to_bytes(8, "big") + user.encode() + payload.encode()).digest()

def key(layout, user, payload):
    return sender_part(user) + pair(user, payload)[:12] if layout == "v25" else pair(user, payload)[:16]

def prepare(layout):
    for suffix in ("", "-wal", "-shm"):
        try: os.remove(path + suffix)
        except FileNotFoundError: pass
    db = sqlite3.connect(path if layout != "empty" else path, isolation_level=None)
    if layout == "empty":
        schema = sqlite3.connect(source[-1]).execute("SELECT sql FROM sqlite_master WHERE tbl_name = 'timeline' AND sql IS NOT NULL").fetchall()
        for (sql,) in schema:
            db.execute(sql)
        db.execute("DROP INDEX IF EXISTS timeline_by_content_prefix")
        db.execute("CREATE INDEX IF NOT EXISTS timeline_by_channel_content ON timeline(substr(channel_id, 1, 8), substr(content_hash, 1, 8))")
        return db
    db.close()
    shutil.copy(source[-1], path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    for name in ("timeline_by_content_prefix", "timeline_by_channel_content", "timeline_payload_key"):
        db.execute(f"DROP INDEX IF EXISTS {name}")
    if layout in ("v21", "v25"):
        db.execute("BEGIN")
        rows = db.execute("SELECT rowid, sender_user_id, payload_id FROM timeline WHERE sender_user_id IS NOT NULL AND payload_id IS NOT NULL").fetchall()
        db.executemany("UPDATE timeline SET payload_key = ? WHERE rowid = ?", [(key(layout, u, p), r) for r, u, p in rows])
        db.execute("COMMIT")
        db.execute("CREATE UNIQUE INDEX timeline_payload_key ON timeline(payload_key) WHERE payload_key IS NOT NULL")
        if layout == "v21":
            db.execute("CREATE INDEX timeline_by_content_prefix ON timeline(substr(content_hash, 1, 8))")
        else:
            db.execute("CREATE INDEX timeline_by_channel_content ON timeline(substr(channel_id, 1, 8), substr(content_hash, 1, 8))")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    os.system(f"cat {path} > /dev/null")  # warm, as a store in use
    return sqlite3.connect(path, isolation_level=None)

channels = [str(uuid.uuid4()) for _ in range(4)]
users = [str(uuid.uuid4()) for _ in range(10)]
print(f"| layout | {per} rows a transaction: wall | CPU |")
print("|---|---:|---:|")
for layout in layouts:
    db = prepare(layout)
    for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "secure_delete = ON", "cache_size = -8192", "wal_autocheckpoint = 10000"):
        db.execute(f"PRAGMA {pragma}")
    rows = []
    for i in range(80_000):
        mid, payload, user = str(uuid.uuid4()), str(uuid.uuid4()), users[i % 10]
        rows.append((mid, channels[i % 4], user, user, 1_900_000_000_000_000 + i * 1000, hashlib.sha256(mid.encode()).digest(),
                     os.urandom(158), payload, key("v21" if layout in ("v21", "none") else "v25", user, payload)))
    wall, cpu = time.time(), time.process_time()
    for start in range(0, len(rows), per):
        db.execute("BEGIN")
        db.executemany("""INSERT INTO timeline (message_id, channel_id, sender_user_id, sender_device_id, created_at, content_hash, state,
                          plaintext, kind, payload_id, payload_key) VALUES (?, ?, ?, ?, ?, ?, 'decrypted', ?, 'message', ?, ?)""", rows[start:start + per])
        db.execute("COMMIT")
    print(f"| {layout} | {time.time() - wall:.2f} s | {time.process_time() - cpu:.2f} s |", flush=True)
    db.close()
for suffix in ("", "-wal", "-shm"):
    try: os.remove(path + suffix)
    except FileNotFoundError: pass
