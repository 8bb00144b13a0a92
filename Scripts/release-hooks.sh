#!/usr/bin/env bash
# Release builds carry none of the test hooks of protocol text 1.3 (docs/spec/protocol.md §10.19;
# the linking proposal, §2 "Test hooks"): no `e2ee-tool debug …` subcommand, no E2EE_TEST_*
# variable read, no debug field or method. This script
#  1. finds, in Sources/, every E2EE_TEST_* variable, every `debug…` member and every
#     subcommand compiled only `#if DEBUG` — so a new hook is covered without editing this file;
#  2. builds `e2ee-tool` with `-c release` and checks that none of those names is in the binary
#     and that `e2ee-tool debug …` is refused as an unknown subcommand;
#  3. against a development server, has a release-built Alice read Bob's user key with every
#     E2EE_TEST_* variable set to 100 days: the certificate (current for 30 days) is judged by
#     the system clock — Bob's key pinned and his device linked, exactly as with no variable set
#     — while a debug build run the same way (Carol) judges it expired: the variables are live
#     in debug builds and ignored in release builds.
# Needs the debug build of the package (Scripts/test.sh builds it first) and Python 3 with
# `cryptography` for Scripts/interop/mint_certificate.py (the venv Scripts/test.sh makes).
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "release-hooks: FAIL: $*" >&2; exit 1; }
say() { echo "release-hooks: $*"; }

# 1. The hooks, from the sources: every E2EE_TEST_* name, and what `#if DEBUG` regions declare —
#    members named debug…/test… and subcommand names (`commandName:`).
debug_only() {  # the lines of $1 inside `#if DEBUG` … `#else`/`#endif` (nested #if counted)
    awk '/^[ \t]*#if[ \t]+DEBUG[ \t]*$/ { if (depth == 0) inside = 1; depth++; next }
         /^[ \t]*#if/ { depth++; if (inside) print; next }
         /^[ \t]*#else/ { if (depth == 1) inside = 0; next }
         /^[ \t]*#endif/ { depth--; if (depth == 0) inside = 0; next }
         { if (inside) print }' "$1"
}
variables=$(grep -rhoE 'E2EE_TEST_[A-Z0-9_]+' Sources | sort -u)
debug_code=$(for file in $(grep -rlE '^[[:space:]]*#if[[:space:]]+DEBUG' Sources); do debug_only "$file"; done)
members=$(echo "$debug_code" | grep -oE '\b(func|var|let|case) (debug|test)[A-Z][A-Za-z0-9]*' | awk '{print $2}' | sort -u)
subcommands=$(echo "$debug_code" | grep -oE 'commandName: "[a-z-]+"' | sed 's/.*"\(.*\)"/\1/' | sort -u)
[ -n "$variables" ] || fail "no E2EE_TEST_ variable found in Sources/: the search is broken"
[ -n "$members" ] || fail "no debug-only member found in Sources/: the search is broken"
[ -n "$subcommands" ] || fail "no debug-only subcommand found in Sources/: the search is broken"
say "variables: $(echo $variables)"
say "debug-only members: $(echo $members)"
say "debug-only subcommands: $(echo $subcommands)"

# 2. The release binary.
build_log=.build/release-hooks-build.log
mkdir -p .build
if ! swift build -c release --product e2ee-tool > "$build_log" 2>&1; then
    grep -E "error" "$build_log" | tail -20 >&2
    fail "the release build failed (log: $build_log)"
fi
grep -E "Build complete" "$build_log" || true
release="$(swift build -c release --show-bin-path)/e2ee-tool"
[ -x "$release" ] || fail "no release build at $release"
for name in E2EE_TEST_ $variables $members; do
    if grep -aqF -- "$name" "$release"; then fail "the release binary holds \"$name\""; fi
done
say "no variable or member name is in $release"
# Each debug-only subcommand, under `debug` and on its own, is an unknown argument.
for name in $subcommands; do
    commands=("$name")
    [ "$name" = debug ] || commands+=("debug $name")
    for command in "${commands[@]}"; do
        set +e
        refused=$("$release" $command 2>&1); status=$?
        set -e
        [ "$status" -ne 0 ] || fail "e2ee-tool $command succeeded in a release build"
        echo "$refused" | grep -qiE "unexpected argument.*'${command%% *}'" || fail "e2ee-tool $command was not refused as unknown: $refused"
    done
done
if "$release" --help | grep -qE "^[[:space:]]+($(echo $subcommands | tr ' ' '|'))([[:space:]]|$)"; then fail "the release help lists a debug-only subcommand"; fi
say "every debug-only subcommand is refused as unknown (exit $status: $(echo "$refused" | head -1))"

# 3. Behaviour with every variable set.
debug_bin="$(swift build --show-bin-path)"
debug="$debug_bin/e2ee-tool"
if [ ! -x "$debug" ] || [ ! -x "$debug_bin/e2ee-devserver" ]; then
    swift build --product e2ee-tool
    swift build --product e2ee-devserver
fi
python=.build/interop-venv/bin/python
if [ ! -x "$python" ] || ! "$python" -c 'import cryptography' 2>/dev/null; then
    python3 -m venv .build/interop-venv
    "$python" -m pip install --quiet --disable-pip-version-check -r Scripts/interop/requirements.txt
fi

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
"$debug_bin/e2ee-devserver" --port 0 --no-rate-limit > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do grep -q "listening on" "$work/server.log" && break; sleep 0.1; done
server=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/server.log" | head -1)
[ -n "$server" ] || fail "the development server did not start: $(cat "$work/server.log")"

export E2EE_PASSWORD=password123 E2EE_STORE_PASSPHRASE=release-hooks XDG_DATA_HOME="$work/data"
field() { "$python" -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
# `register <tool> <name>`: a new account in its own store, keys bootstrapped; prints the JSON.
register() {
    local store="$work/$2.store"
    "$1" account register --server "$server" --username "$2" --store "$store" --kdf interactive --json
    "$1" keys bootstrap --store "$store" > /dev/null
}

bob=$(register "$debug" bob)
bob_user=$(echo "$bob" | field user_id); bob_device=$(echo "$bob" | field device_id)
blob=$("$python" - "$server" "$bob_user" "$bob_device" <<'PY'
import base64, json, sys, urllib.request
server, user, device = sys.argv[1:4]
def call(method, path, body=None, token=None):
    request = urllib.request.Request(server + path, method=method, data=json.dumps(body).encode() if body else None)
    request.add_header("Content-Type", "application/json")
    if token: request.add_header("Authorization", "Bearer " + token)
    return json.load(urllib.request.urlopen(request))
token = call("POST", "/api/v1/auth/register", {"username": "observer", "password": "password123"})["access_token"]
bundles = call("GET", f"/api/v1/keys/{user}/bundles", token=token)
bundles = bundles.get("bundles", bundles) if isinstance(bundles, dict) else bundles
print(next(base64.b64decode(b["identity_key"]).hex() for b in bundles if b["device_id"] == device))
PY
)
not_after=$(( $(date +%s) + 30 * 86400 ))
seed=$("$python" -c 'import os; print(os.urandom(32).hex())')
minted=$(cd Scripts/interop && "../../$python" mint_certificate.py --identity-blob "$blob" --user-id "$bob_user" --device-id "$bob_device" \
    --user-key-seed "$seed" --epoch 1 --not-after "$not_after")
"$debug" debug publish-cert "$(echo "$minted" | field certificate)" --store "$work/bob.store" > /dev/null
key=$(echo "$minted" | field user_key)
say "Bob's device carries a certificate under $key, current for 30 days"

# Every variable the sources read, set: numbers to 100 days (the clock offset's unit is
# seconds); the crash point to a point `user-key show` never passes (a removal's), since a debug
# build refuses a name that is no crash point.
hooks=()
for name in $variables; do
    case "$name" in
        E2EE_TEST_CRASH_AT) hooks+=("$name=primaryFileSaved") ;;
        *) hooks+=("$name=8640000") ;;
    esac
done

register "$release" alice > /dev/null
alice=$(env "${hooks[@]}" "$release" user-key show "$bob_user" --store "$work/alice.store" --json)
register "$debug" carol > /dev/null
carol=$(env "${hooks[@]}" "$debug" user-key show "$bob_user" --store "$work/carol.store" --json)
check() { "$python" -c "import json, sys; shown = json.loads(sys.argv[1]); sys.exit(0 if $2 else 1)" "$1"; }
check "$alice" "shown['state'] == 'pinned' and shown.get('key') == '$key' and shown['linked_devices'] == ['$bob_device']" \
    || fail "a release build with ${hooks[*]} did not judge Bob's certificate by the system clock: $alice"
check "$carol" "shown['state'] != 'pinned' and shown['linked_devices'] == []" \
    || fail "a debug build with ${hooks[*]} still linked Bob's device: the check above proves nothing: $carol"
devices=$(env "${hooks[@]}" "$release" devices "$bob_user" --store "$work/alice.store" --json)
check "$devices" "[d['linked'] for d in (shown if isinstance(shown, list) else shown['devices'])] == [True]" \
    || fail "release devices with the variables set: $devices"
say "with ${hooks[*]}: the release build links Bob's device (system clock); the debug build does not (clock moved 100 days)"
say "ok"
