#!/usr/bin/env python3
"""The history transfer to a new linked device, end to end (issue 46): release e2ee-devserver and
real release e2ee-tool processes, one Markdown table on standard output.

For each size: a fresh server and folder; Bob registers his phone with a user key, opens a DM
with Alice, and `HistorySeeder` fills the phone's store with that many of his own messages in the
DM (before any process opens it, not timed); a laptop logs in; `link accept --history all` on
the phone and `link start` on the laptop, the two codes typed. Timed from the moment the laptop
says it is linked (the grant taken; the primary then spools its snapshot and sends it) to the
laptop's report that it holds the primary's trust decisions and history (digests checked,
history imported). Peak memory is each process's own high-water mark (`ru_maxrss` from
`wait4`), the whole life of `link accept` and `link start`, the ceremony included.

Nothing here is a pass/fail test: it reports what it measured, on whatever machine it runs.
"""

import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


class Lines:
    """Reads a pipe line by line on a thread, stamping each line with the time it arrived."""

    def __init__(self, stream):
        self.items = queue.Queue()
        self.all = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream):
        for raw in iter(stream.readline, b""):
            item = (time.time(), raw.decode("utf-8", "replace").rstrip("\n"))
            self.all.append(item)
            self.items.put(item)

    def wait(self, predicate, timeout):
        """The first (time, line) from now on that satisfies predicate, or None."""
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                return None
            try:
                stamp, line = self.items.get(timeout=left)
            except queue.Empty:
                return None
            if predicate(line):
                return stamp, line


class Live:
    """A long-running tool process with a standard input to type into; its stdout and stderr
    read as stamped lines. `finish` reaps it with wait4, for its peak resident set."""

    def __init__(self, command, env):
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out = Lines(self.process.stdout)
        self.err = Lines(self.process.stderr)

    def type(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def finish(self, timeout):
        """(exit status, peak resident kB, end time); SIGKILL after `timeout` seconds."""
        deadline = time.time() + timeout
        while True:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                return self.process.returncode, usage.ru_maxrss, time.time()
            if time.time() > deadline:
                self.process.kill()
                deadline = time.time() + 30
            time.sleep(0.05)


class Run:
    def __init__(self, args, messages):
        self.args = args
        self.messages = messages
        self.dir = tempfile.mkdtemp(prefix="e2ee-transfer-")
        self.url = f"http://127.0.0.1:{args.port}"
        self.env = dict(os.environ, E2EE_STORE_PASSPHRASE="transfer-passphrase", E2EE_PASSWORD="transfer-password",
                        XDG_DATA_HOME=self.dir, HOME=self.dir)
        self.server = None

    def store(self, name):
        return os.path.join(self.dir, name)

    def tool(self, store, *arguments):
        command = [self.args.tool] + list(arguments) + ["--store", self.store(store), "--json"]
        done = subprocess.run(command, env=self.env, capture_output=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit(f"e2ee-tool {' '.join(arguments)} exited {done.returncode}: {done.stderr.decode()[-400:]}")
        return json.loads(done.stdout.decode() or "null")

    def setup(self):
        command = [self.args.devserver, "--host", "127.0.0.1", "--port", str(self.args.port),
                   "--database", self.store("server.sqlite")] + self.args.server_flags
        self.server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if Lines(self.server.stdout).wait(lambda line: "listening on" in line, 60) is None:
            raise SystemExit("the dev server did not start")
        bob = self.tool("phone.sqlite", "account", "register", "--server", self.url, "--username", "bob", "--kdf", "interactive",
                        "--user-key")
        self.tool("phone.sqlite", "keys", "bootstrap")
        alice = self.tool("alice.sqlite", "account", "register", "--server", self.url, "--username", "alice", "--kdf", "interactive")
        self.tool("alice.sqlite", "keys", "bootstrap")
        dm = self.tool("phone.sqlite", "channels", "dm", alice["user_id"])
        self.tool("laptop.sqlite", "account", "login", "--server", self.url, "--username", "bob", "--kdf", "interactive")
        self.tool("laptop.sqlite", "keys", "bootstrap")
        started = time.time()
        seeded = subprocess.run([self.args.seeder, self.store("phone.sqlite"), str(self.messages), dm["id"], bob["user_id"], bob["device_id"]],
                                env=self.env, capture_output=True, timeout=3600)
        if seeded.returncode != 0:
            raise SystemExit(f"HistorySeeder exited {seeded.returncode}: {seeded.stderr.decode()[-400:]}")
        log(f"{self.messages} messages seeded in {time.time() - started:.1f} s")

    def transfer(self):
        wrap = os.environ.get("TRANSFER_PRIMARY_WRAP", "").split()  # e.g. `heaptrack -o FILE`, to see where the primary's memory goes
        phone = Live(wrap + [self.args.tool, "link", "accept", "--store", self.store("phone.sqlite"), "--history", "all", "--timeout", "3600"], self.env)
        if phone.err.wait(lambda line: "waiting for a request" in line, 60) is None:
            raise SystemExit("link accept did not start")
        laptop = Live([self.args.tool, "link", "start", "--store", self.store("laptop.sqlite"), "--timeout", "3600"], self.env)
        code = laptop.out.wait(lambda line: line.startswith("code: "), 60)
        if code is None or phone.err.wait(lambda line: "type the code" in line, 60) is None:
            raise SystemExit("no code from link start")
        phone.type(code[1][len("code: "):])
        answer = phone.out.wait(lambda line: line.startswith("code: "), 60)
        if answer is None:
            raise SystemExit("no code from link accept")
        laptop.type(answer[1][len("code: "):])
        linked = laptop.err.wait(lambda line: line.startswith("linked;"), 120)
        if linked is None:
            raise SystemExit("the laptop was not linked")
        first = laptop.err.wait(lambda line: re.search(r"phase 1: [1-9]\d*/", line) is not None, 3600)
        done = laptop.err.wait(lambda line: line.startswith("took "), 7200)
        laptop_exit, laptop_peak, _ = laptop.finish(120)
        phone_exit, phone_peak, _ = phone.finish(120)
        if done is None:
            tail = "\n".join(line for _, line in laptop.err.all[-5:] + phone.err.all[-5:])
            raise SystemExit(f"the transfer did not finish (laptop {laptop_exit}, phone {phone_exit}):\n{tail}")
        # The new device done, but a process that did not exit on its own (killed after 120 s) is
        # reported: seen with `link start` holding its last acknowledgement queued.
        ended = "both exited 0" if laptop_exit == 0 and phone_exit == 0 else f"link start {laptop_exit}, link accept {phone_exit}"
        if ended != "both exited 0":
            log(f"{self.messages}: the new device finished, but {ended} (negative: killed after waiting 120 s)")
        last = [line for _, line in laptop.err.all if " records, " in line][-1]
        return {
            "messages": self.messages,
            "wall": done[0] - linked[0],
            "first": (first[0] - linked[0]) if first else float("nan"),
            "phone_peak": phone_peak,
            "laptop_peak": laptop_peak,
            "last": last,
            "ended": ended,
        }

    def finish(self):
        if self.server:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.server.kill()
        if not self.args.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--devserver", required=True)
    parser.add_argument("--seeder", required=True)
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--sizes", default="20000,200000", help="comma-separated message counts")
    parser.add_argument("--keep", action="store_true", help="keep each run's folder")
    parser.add_argument("--server-flag", dest="server_flags", action="append", default=[],
                        help="passed to e2ee-devserver, e.g. --server-flag=--no-rate-limit (both devices share one IP here, so the "
                             "reference server's 300 requests a minute per IP caps the pair)")
    args = parser.parse_args()
    results = []
    for size in [int(text) for text in args.sizes.split(",")]:
        run = Run(args, size)
        try:
            run.setup()
            log(f"{size}: linking and transferring…")
            result = run.transfer()
            log(f"{size}: {result['last']}")
            results.append(result)
        finally:
            run.finish()
    print("| messages | linked → done | messages/s | linked → first chunk committed | peak RSS primary (`link accept`) | peak RSS new device (`link start`) | processes |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(f"| {r['messages']:,} | {r['wall']:.1f} s | {r['messages'] / r['wall']:,.0f} | {r['first']:.1f} s "
              f"| {r['phone_peak'] / 1024:,.1f} MiB | {r['laptop_peak'] / 1024:,.1f} MiB | {r['ended']} |")


if __name__ == "__main__":
    main()
