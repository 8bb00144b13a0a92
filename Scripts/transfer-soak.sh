#!/usr/bin/env bash
# Issue 46's soak (docs/testing.md): the history transfer of 20,000 messages (or the count given)
# between real e2ee-tool processes on the development server, the primary's and the new device's
# processes each SIGKILLed twice mid-transfer, link posts dropped and stored twice, socket events
# doubled — each message once, in order, digests matched, the transfer channel deleted. The
# default suite runs the same test on 500 messages; this one takes minutes (debug build).
#
#   Scripts/transfer-soak.sh           # 20,000 messages
#   Scripts/transfer-soak.sh 5000      # another count
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-20000}"
swift build --build-tests >&2
bin=$(swift build --show-bin-path)
started=$(date +%s)
E2EE_TRANSFER_SOAK="$count" "$bin/E2EECorePackageTests.xctest" --testing-library swift-testing --filter TransferSoakTests
echo "transfer soak of $count messages: $(( $(date +%s) - started )) s" >&2
