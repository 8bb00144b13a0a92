#!/usr/bin/env python3
"""Records real traffic of the development server and writes it as seeds.

Starts `e2ee-devserver` on a free loopback port and a recording TCP proxy in front of it,
then drives two users through `e2ee-tool` (register, bootstrap keys, a DM, a group, history,
a `listen` that receives live WebSocket events). Every HTTP answer body is written into the
corpus of the target that decodes it (`fuzz-server-json` with the model's selector byte,
`fuzz-prekey-bundle`), every server WebSocket text frame into `fuzz-realtime-event`, and the
frames of each connection, in the assembler's input format, into `fuzz-message-assembler`.

usage: record_traffic.py BIN_DIR CORPUS_DIR   (BIN_DIR holds e2ee-devserver and e2ee-tool)
"""
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

bin_dir, corpus = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="e2ee-record-")
connections = []  # (client->server bytes, server->client bytes) per connection


def seed(target, data, prefix="rec"):
    folder = os.path.join(corpus, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, prefix + "-" + hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def pump(source, sink, log):
    try:
        while True:
            chunk = source.recv(65536)
            if not chunk:
                break
            log.append(chunk)
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def proxy(listener, upstream_port):
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        server = socket.create_connection(("127.0.0.1", upstream_port))
        up, down = [], []
        connections.append((up, down))
        threading.Thread(target=pump, args=(client, server, up), daemon=True).start()
        threading.Thread(target=pump, args=(server, client, down), daemon=True).start()


def requests_of(data):
    return re.findall(rb"^(GET|POST|PATCH|PUT|DELETE) (\S+) HTTP/1\.1\r\n", data, re.M)


def responses_of(data):
    """HTTP/1.1 answers (content-length or chunked) until a 101 switch; then the rest."""
    answers, index = [], 0
    while index < len(data):
        end = data.find(b"\r\n\r\n", index)
        if end < 0:
            break
        head = data[index:end].decode("latin-1")
        status = int(head.split(" ")[1])
        index = end + 4
        if status == 101:
            return answers, data[index:]
        length = re.search(r"(?im)^content-length:\s*(\d+)", head)
        if length:
            body = data[index:index + int(length.group(1))]
            index += int(length.group(1))
        elif re.search(r"(?im)^transfer-encoding:\s*chunked", head):
            body = b""
            while True:
                line_end = data.find(b"\r\n", index)
                size = int(data[index:line_end].split(b";")[0], 16)
                index = line_end + 2
                body += data[index:index + size]
                index += size + 2
                if size == 0:
                    break
        else:
            body = b""
        answers.append((status, body))
    return answers, b""


def frames_of(data):
    """Server WebSocket frames (never masked): (fin, opcode, payload)."""
    frames, index = [], 0
    while index + 2 <= len(data):
        fin, opcode = data[index] & 0x80, data[index] & 0x0F
        length = data[index + 1] & 0x7F
        index += 2
        if length == 126:
            length = int.from_bytes(data[index:index + 2], "big")
            index += 2
        elif length == 127:
            length = int.from_bytes(data[index:index + 8], "big")
            index += 8
        frames.append((fin, opcode, data[index:index + length]))
        index += length
    return frames


def assembler_input(frames):
    """The assembler target's format: header (opcode | 0x80 FIN), length byte, payload; long
    payloads split into continuation frames of at most 255 bytes."""
    out = b""
    for fin, opcode, payload in frames:
        pieces = [payload[i:i + 255] for i in range(0, len(payload), 255)] or [b""]
        for number, piece in enumerate(pieces):
            last = number == len(pieces) - 1
            out += bytes([(opcode if number == 0 else 0) | (0x80 if last and fin else 0), len(piece)]) + piece
    return out


SELECTORS = [
    (r"^GET /channels/[^/]+/messages", 0), (r"^GET /channels$", 1), (r"^GET /channels/[^/]+/members", 3),
    (r"^(POST|GET|PATCH) /channels(/dm|/[^/]+)?$", 2), (r"^GET /keys/[^/]+/bundles", 4), (r"^GET /keys/[^/]+/bundle$", 5),
    (r"^GET /keys/channels/[^/]+/sender-keys", 6), (r"^(POST /channels/[^/]+/messages|PATCH /channels/messages/)", 7),
    (r"^GET /users/search", 8), (r"^GET /devices", 9), (r"^POST /auth/(register|login|refresh)", 10), (r"^POST /auth/ws-ticket", 11),
]


def main():
    server = subprocess.Popen([os.path.join(bin_dir, "e2ee-devserver"), "--port", "0", "--no-rate-limit"],
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        upstream = int(re.search(r"http://127\.0\.0\.1:(\d+)", line).group(1))
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        threading.Thread(target=proxy, args=(listener, upstream), daemon=True).start()
        url = "http://127.0.0.1:%d" % listener.getsockname()[1]
        drive(url)
        time.sleep(1)
        listener.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    write_seeds()


def tool(user, *args, background=False):
    env = dict(os.environ, E2EE_STORE_PASSPHRASE="fuzz-record", E2EE_PASSWORD="fuzz-record-password")
    command = [os.path.join(bin_dir, "e2ee-tool"), *args, "--store", os.path.join(work, user + ".sqlite")]
    if background:
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise SystemExit("e2ee-tool %s failed: %s %s" % (" ".join(args), result.stdout, result.stderr))
    return result.stdout


def drive(url):
    ids = {}
    for user in ("alice", "bob"):
        out = tool(user, "account", "register", "--server", url, "--username", user, "--kdf", "interactive", "--json")
        ids[user] = json.loads(out)["user_id"]
        tool(user, "keys", "bootstrap")
    dm = json.loads(tool("alice", "channels", "dm", ids["bob"], "--json"))["id"]
    tool("alice", "send", dm, "hello bob, this is a DM")
    tool("bob", "history", dm)
    tool("bob", "send", dm, "hi alice \u00e9\u00e8 \U0001F600")
    group = json.loads(tool("alice", "channels", "create", "fuzz-group", "--member", ids["bob"], "--json"))["id"]
    tool("alice", "send", group, "hello group")
    listener = tool("alice", "listen", "--count", "3", "--timeout", "40", "--json", background=True)
    time.sleep(4)
    tool("bob", "history", group)
    tool("bob", "send", group, "group reply " + "x" * 600)
    tool("bob", "send", dm, "one more DM")
    tool("bob", "send", group, "another")
    listener.wait(timeout=60)
    for user in ("alice", "bob"):
        tool(user, "history", dm)
        tool(user, "channels")
        tool(user, "keys", "status")
        tool(user, "devices", ids["bob" if user == "alice" else "alice"])


# The events the session above does not provoke, in the shapes docs/spec/server-api.md gives.
HANDWRITTEN_EVENTS = [
    {"type": "message.edit", "message": {"id": "1f3a2e4e-d5b6-4de5-9111-825cce5810b7", "channel_id": "4bde6aca-2b79-46b5-a4cb-7f3e2fca21c6",
                                         "content": "AwI=", "edited_at": "2026-11-25T10:54:46.000001+00:00"}},
    {"type": "message.delete", "message_id": "1f3a2e4e-d5b6-4de5-9111-825cce5810b7", "channel_id": "4bde6aca-2b79-46b5-a4cb-7f3e2fca21c6"},
    {"type": "typing.start", "user_id": "3e111952-f3ee-41e8-93bd-2302543598f8", "channel_id": "4bde6aca-2b79-46b5-a4cb-7f3e2fca21c6"},
    {"type": "typing.stop", "user_id": "3e111952-f3ee-41e8-93bd-2302543598f8", "channel_id": "4bde6aca-2b79-46b5-a4cb-7f3e2fca21c6"},
    {"type": "channel.new", "channel": {"id": "4bde6aca-2b79-46b5-a4cb-7f3e2fca21c6", "name": "fuzz-group", "is_dm": False,
                                        "encryption_type": "sender_keys", "created_by": "3e111952-f3ee-41e8-93bd-2302543598f8",
                                        "created_at": "2026-11-25T10:54:40.000000+00:00"}},
    {"type": "keys.low_otp", "device_id": "d49fbe53-dd1f-4b98-b66f-aa1b87f31573", "remaining": 3},
    {"type": "sender_key.new", "channel_id": "4bde6aca-2b79-46b5-a4cb-7f3e2fca21c6", "device_id": "d49fbe53-dd1f-4b98-b66f-aa1b87f31573"},
    {"error": "Invalid JSON"},
]


def write_seeds():
    for event in HANDWRITTEN_EVENTS:
        seed("fuzz-realtime-event", json.dumps(event, separators=(",", ":")).encode(), prefix="api")
    for up, down in connections:
        requests = requests_of(b"".join(up))
        answers, websocket = responses_of(b"".join(down))
        for (method, path), (status, body) in zip(requests, answers):
            request = (method + b" " + re.sub(rb"^/api/v1", b"", path.split(b"?")[0])).decode()
            # The throwaway server's tokens are replaced by a fixed value of the same shape.
            body = re.sub(rb'"(access_token|refresh_token|ticket)":"[^"]*"', lambda m: b'"%s":"%s"' % (m.group(1), b"0" * 64), body)
            for pattern, selector in SELECTORS:
                if re.search(pattern, request):
                    seed("fuzz-server-json", bytes([selector]) + body)
                    if selector == 4:
                        seed("fuzz-prekey-bundle", body)
                    break
        frames = frames_of(websocket)
        for fin, opcode, payload in frames:
            if opcode == 1:
                seed("fuzz-realtime-event", payload)
        if frames:
            seed("fuzz-message-assembler", assembler_input(frames))


main()
