# Sourced by overhead.sh, protocol-floor.sh and keystore.sh: runs one benchmark target once
# (release build) with a JMH export, unless the first argument is --table-only, and leaves the
# export files in the array `exports`.
#
#   run_suite TARGET OUT_DIR [benchmark-run arguments…]
run_suite() {
    local target="$1" out="$2"
    shift 2
    if [[ "${1:-}" != "--table-only" ]]; then
        rm -rf "$out"
        mkdir -p "$out"
        if ! swift package --allow-writing-to-package-directory benchmark run \
            --target "$target" --format jmh --path "$out" --no-progress "$@" >"$out/run.log" 2>&1; then
            tail -n 40 "$out/run.log" >&2
            echo "benchmark run failed; full log in Benchmarks/$out/run.log" >&2
            exit 1
        fi
    fi
    shopt -s nullglob
    exports=("$out"/*.jmh.json)
    if [[ ${#exports[@]} -eq 0 ]]; then
        echo "no JMH export found in Benchmarks/$out (see $out/run.log)" >&2
        exit 1
    fi
}
