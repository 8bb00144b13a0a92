#!/usr/bin/env bash
# The first README command: on a fresh Debian/Ubuntu machine (with Swift on PATH), installs the
# system packages, builds, and runs `e2ee-tool demo`: two users with two devices each talk in a
# DM and a group through an in-process development server, and every device prints what it read.
# Arguments are passed to the demo (`bash Scripts/demo.sh --json`).
set -euo pipefail
cd "$(dirname "$0")/.."

bash Scripts/install-packages.sh
swift run e2ee-tool demo "$@"
