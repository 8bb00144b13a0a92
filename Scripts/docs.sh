#!/usr/bin/env bash
# Builds the API reference of every public library (DocC, through swift-docc-plugin) with
# warnings treated as errors: a broken symbol link, an unresolved topic or a malformed doc
# comment fails the command. The archives land in .build/docs/<Target>.doccarchive.
# Needs the same system packages as the build (Scripts/install-packages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(E2EECrypto E2EEKeyStore E2EEMessaging E2EETransport)
mkdir -p .build/docs
for target in "${targets[@]}"; do
    echo "docs: $target"
    swift package --allow-writing-to-directory .build/docs \
        generate-documentation --target "$target" \
        --output-path ".build/docs/$target.doccarchive" \
        --warnings-as-errors
done
echo "docs: ${#targets[@]} archives in .build/docs (${SECONDS}s)"
