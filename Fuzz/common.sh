# Shared by run.sh, smoke.sh and seed.sh (sourced, not run).
FUZZ_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The build folder (FUZZ_BUILD_DIR overrides it, e.g. for a clean build elsewhere).
FUZZ_BUILD_DIR="${FUZZ_BUILD_DIR:-$FUZZ_DIR/.build}"
# debug (the default, what CI's smoke builds) or release: `-O` with AddressSanitizer still on,
# several times the executions per second, for long campaigns. `-enable-testing` keeps the
# targets' `@testable import`s working in release.
FUZZ_CONFIGURATION="${FUZZ_CONFIGURATION:-debug}"
case "$FUZZ_CONFIGURATION" in
    debug) FUZZ_BUILD_FLAGS=() ;;
    release) FUZZ_BUILD_FLAGS=(-c release -Xswiftc -enable-testing) ;;
    *) echo "FUZZ_CONFIGURATION must be debug or release" >&2; exit 2 ;;
esac
FUZZ_BIN="$FUZZ_BUILD_DIR/$FUZZ_CONFIGURATION"
FUZZ_TARGETS=(
    fuzz-envelope fuzz-recipient-entries fuzz-pairwise-message fuzz-pairwise-plaintext
    fuzz-published-keys fuzz-signed-prekey-record fuzz-prekey-bundle fuzz-payload-json fuzz-json-differential fuzz-base64
    fuzz-server-json fuzz-realtime-event fuzz-message-assembler fuzz-stored-forms
    fuzz-store-metadata fuzz-receiving-device fuzz-link-plaintext fuzz-transfer-records
)
# Leak checking is off: the Swift runtime's caches look like leaks to LeakSanitizer. Unbounded
# allocation is caught by libFuzzer's -rss_limit_mb/-malloc_limit_mb instead.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:handle_abort=1}"
# Per input: 10 s is a hang; 2 GiB resident or one 512 MiB allocation is unbounded growth.
FUZZ_LIMITS=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512)

# The dictionary of a target (none for some).
fuzz_dictionary() {
    case "$1" in
        fuzz-payload-json | fuzz-json-differential | fuzz-server-json | fuzz-realtime-event | fuzz-prekey-bundle | fuzz-message-assembler)
            echo "-dict=$FUZZ_DIR/Dictionaries/json.dict" ;;
        fuzz-envelope | fuzz-recipient-entries | fuzz-pairwise-message | fuzz-pairwise-plaintext | fuzz-published-keys | fuzz-signed-prekey-record | fuzz-link-plaintext | fuzz-transfer-records | fuzz-stored-forms | fuzz-receiving-device)
            echo "-dict=$FUZZ_DIR/Dictionaries/envelope.dict" ;;
    esac
}

# Builds the given targets with libFuzzer and AddressSanitizer on every Swift module (so the
# library is instrumented too). One product at a time: a plain `swift build` would also link
# the main package's executables, whose `main` clashes with libFuzzer's.
fuzz_build() {
    local target
    for target in "$@"; do
        (cd "$FUZZ_DIR" && swift build --scratch-path "$FUZZ_BUILD_DIR" "${FUZZ_BUILD_FLAGS[@]}" --product "$target" -Xswiftc -sanitize=fuzzer,address 2>&1 \
            | grep -v "warning: Cannot export local symbol\|found 1 file(s) which are unhandled"; exit "${PIPESTATUS[0]}") \
            || { echo "build of $target failed" >&2; return 1; }
    done
}

# Targets named on the command line, or all; refuses unknown names.
fuzz_select() {
    if [ $# -eq 0 ]; then printf '%s\n' "${FUZZ_TARGETS[@]}"; return; fi
    local name
    for name in "$@"; do
        [[ " ${FUZZ_TARGETS[*]} " == *" $name "* ]] || { echo "unknown target: $name (known: ${FUZZ_TARGETS[*]})" >&2; return 1; }
        echo "$name"
    done
}

# Minimises into Corpus/<target> (top level) the union of what it holds and the given folders,
# with libFuzzer's -merge=1 (keeps the smallest inputs that reach all the features).
# Corpus/<target>/regressions/ (inputs of past findings) is kept as it is.
fuzz_merge() {
    local target=$1; shift
    local merged
    merged=$(mktemp -d)
    mkdir -p "$FUZZ_DIR/Corpus/$target"
    "$FUZZ_BIN/$target" -merge=1 "${FUZZ_LIMITS[@]}" "$merged" "$FUZZ_DIR/Corpus/$target" "$@" >"$merged.log" 2>&1 \
        || { cat "$merged.log" >&2; rm -rf "$merged" "$merged.log"; return 1; }
    find "$FUZZ_DIR/Corpus/$target" -maxdepth 1 -type f -delete
    cp "$merged"/* "$FUZZ_DIR/Corpus/$target/" 2>/dev/null || true
    echo "$target: $(find "$FUZZ_DIR/Corpus/$target" -maxdepth 1 -type f | wc -l) inputs," \
        "$(du -sk "$FUZZ_DIR/Corpus/$target" | cut -f1) kB"
    rm -rf "$merged" "$merged.log"
}
