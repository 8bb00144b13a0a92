#!/usr/bin/env python3
"""Checks that the public types of every library are the ones docs/public-api.md declares.

Reads the DocC archives Scripts/docs.sh leaves in .build/docs/<Module>.doccarchive (so it runs
after that script) and, for each module, compares:
  - the public types (class, struct, enum, protocol, actor, typealias, nested ones as
    `Outer.Inner`), top-level functions and variables, and extensions of other modules' types
    (as `Swift.Array`) that DocC lists,
  - with the names in the first column of the tables under the module's `## <Module>` heading
    in docs/public-api.md (every `name` in backticks there).

A public symbol the page does not list, or a listed name that is not public, fails the check:
making something public is a decision that is written down first. Members of a listed type are
not listed one by one; the type's own reference covers them — except for a type whose members
the page does list (`KeyStore.close()`: a dotted name whose last part starts in lower case):
then its public members must be exactly those, so that the type cannot grow a public member
unnoticed (the key store keeps its operations `package`). `@_spi` and `package` symbols are
not in the archives (DocC documents the public API only), so they need no entry.

Usage: Scripts/check-public-api.py [--docs DIR] [--page FILE]
"""
import argparse
import json
import os
import re
import sys

MODULES = ["E2EECrypto", "E2EEKeyStore", "E2EEMessaging", "E2EETransport"]
TYPE_KINDS = {"class", "struct", "enum", "protocol", "actor", "typealias", "associatedtype", "macro"}
TOP_LEVEL_KINDS = {"func", "var", "let", "op"}


def documented(page_path):
    """Names per module: backticked names in the first cell of table rows under `## Module`."""
    names = {}
    module = None
    with open(page_path, encoding="utf-8") as page:
        for line in page:
            heading = re.match(r"^## (\S+)\s*$", line)
            if heading:
                module = heading.group(1) if heading.group(1) in MODULES else None
                if module:
                    names.setdefault(module, set())
                continue
            if module and line.startswith("|"):
                first = line.split("|")[1]
                names[module].update(re.findall(r"`([^`]+)`", first))
    return names


def is_member(name):
    """`KeyStore.close()`, `KeyStore.path`: a dotted name whose last part is not a type's."""
    return "." in name and not name.rsplit(".", 1)[1][:1].isupper()


def public_symbols(archive, module):
    """Public types, top-level symbols and extended types of one DocC archive, and the members
    of each type (`Type.member(label:)`, DocC's own disambiguation removed)."""
    root = os.path.join(archive, "data", "documentation")
    if not os.path.isdir(root):
        sys.exit(f"check-public-api: no DocC data in {archive} (run Scripts/docs.sh first)")
    prefix = f"doc://{module}/documentation/{module}/"
    found = set()
    members = set()
    for folder, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".json"):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as file:
                node = json.load(file)
            metadata = node.get("metadata", {})
            if metadata.get("role") != "symbol":
                continue
            url = node.get("identifier", {}).get("url", "")
            if not url.startswith(prefix):
                continue
            # DocC disambiguates some paths (`Kind-swift.enum`, `init(_:)-3f2a9`).
            path = [re.sub(r"-(swift\.[A-Za-z.]+|[0-9a-z]{4,6})$", "", component)
                    for component in url[len(prefix):].split("/")]
            kind = metadata.get("symbolKind", "")
            if kind not in TYPE_KINDS and kind != "extension" and len(path) > 1:
                members.add(".".join(path))
            if kind in TYPE_KINDS and metadata.get("extendedModule") in (None, module):
                found.add(".".join(path))
            elif kind in TOP_LEVEL_KINDS and len(path) == 1:
                found.add(path[0])
            elif kind == "extension":
                # An extension of another module's type: `<Module>/<Type>` under our module.
                found.add(".".join(path))
    return found, members


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", default=".build/docs", help="the folder of the DocC archives")
    parser.add_argument("--page", default="docs/public-api.md", help="the declared public API")
    arguments = parser.parse_args()

    declared = documented(arguments.page)
    failed = False
    for module in MODULES:
        actual, members = public_symbols(os.path.join(arguments.docs, f"{module}.doccarchive"), module)
        listed_members = {name for name in declared.get(module, set()) if is_member(name)}
        listed = declared.get(module, set()) - listed_members
        # Types whose members the page pins: their public members must be the listed ones.
        pinned = {name.rsplit(".", 1)[0] for name in listed_members}
        actual_members = {name for name in members if name.rsplit(".", 1)[0] in pinned}
        for name in sorted(actual_members - listed_members):
            print(f"check-public-api: {module}.{name} is public but {arguments.page} pins "
                  f"{name.rsplit('.', 1)[0]}'s members and does not list it")
            failed = True
        for name in sorted(listed_members - actual_members):
            print(f"check-public-api: {module}.{name} is listed in {arguments.page} but not public")
            failed = True
        for name in sorted(actual - listed):
            print(f"check-public-api: {module}.{name} is public but not listed in {arguments.page}")
            failed = True
        for name in sorted(listed - actual):
            print(f"check-public-api: {module}.{name} is listed in {arguments.page} but not public")
            failed = True
        print(f"check-public-api: {module}: {len(actual)} public types and top-level symbols")
    if failed:
        print("check-public-api: make it package/internal (or @_spi for Benchmarks and Fuzz), "
              f"or list it in {arguments.page} with why it is public")
        sys.exit(1)


if __name__ == "__main__":
    main()
