#!/usr/bin/env bash
# Installs the system packages the project needs and a fresh Debian/Ubuntu machine lacks, then
# returns. Called first by both README commands (Scripts/demo.sh, Scripts/test.sh); idempotent
# and quiet when everything is there already.
#   Scripts/install-packages.sh          what building needs (libsodium, SQLite, pkg-config)
#   Scripts/install-packages.sh --tests  plus what the test command needs (python3-venv)
# Swift itself (6.1 or newer) is not a Debian package: it must already be on PATH.
set -euo pipefail

apt_packages=(libsodium-dev libsqlite3-dev pkg-config)
if [ "${1:-}" = "--tests" ]; then
    apt_packages+=(python3-venv)
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "install-packages: 'swift' is not on PATH; install a Swift 6.1+ toolchain from swift.org first" >&2
    exit 1
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    # Not Debian: say what is needed and let the build report anything missing.
    echo "install-packages: not a Debian/Ubuntu system; needs ${apt_packages[*]} or the equivalent (macOS: brew install libsodium)" >&2
    exit 0
fi

missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-packages: installing ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
