#!/usr/bin/env python3
"""Recompute E2EECore's protocol vectors independently (Python + ``cryptography``).

Usage: verify_protocol_vectors.py [DIR] [--allow-missing] [--strict-failures]

Loads every ``*.json`` in DIR (default: ``TestVectors/protocol`` of this repository), dispatches
on ``algorithm``, recomputes every output of every valid test byte for byte and checks that
every invalid test is refused. Prints one line per file and a final ``N passed, M failed``.
Exit status 0 only if nothing failed and at least one test ran for each of the eight protocol
algorithms (``--allow-missing`` tolerates absent algorithms). Unknown algorithms are reported
and skipped. ``--strict-failures`` also compares each refusal's typed error with the vector's
``failure`` name (informative: the spec fixes that a case is refused, not always which check
fires first). Failure lines name the file, ``tcId`` and field, never key material.
"""

import argparse
import json
import sys
from pathlib import Path

from e2ee_interop.checks import CHECKS, VectorFailure, common
from e2ee_interop.errors import ProtocolError
from vector_layout import layout_problems

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR = REPO_ROOT / "TestVectors" / "protocol"


def _run_test(check, group: dict, test: dict):
    """None when the test agrees, else the reason it failed."""
    try:
        check(group, test)
    except VectorFailure as failure:
        return str(failure)
    except ProtocolError as error:
        return f"refused ({error.case}) although the vector says valid"
    except Exception as error:  # noqa: BLE001 — any crash on a vector is a failure, reported
        return f"{type(error).__name__} while checking: {error}"[:240]
    return None


def verify_file(path: Path, counts: dict, ran: dict) -> None:
    """Check one vector file; updates ``counts`` (passed/failed) and ``ran`` (per algorithm)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"interop: FAIL {path.name}: cannot load ({type(error).__name__})")
        counts["failed"] += 1
        return
    algorithm = data.get("algorithm") if isinstance(data, dict) else None
    check = CHECKS.get(algorithm)
    if check is None:
        print(f"interop: unknown algorithm {algorithm!r} in {path.name}: skipped")
        return
    for problem in layout_problems(data):
        print(f"interop: FAIL {algorithm} {path.name}: layout: {problem}")
        counts["failed"] += 1
    valid_ok = invalid_refused = 0
    for group in data.get("testGroups") or []:
        for test in (group.get("tests") or []) if isinstance(group, dict) else []:
            if not isinstance(test, dict):
                continue
            reason = _run_test(check, group, test)
            ran[algorithm] = ran.get(algorithm, 0) + 1
            if reason is None:
                counts["passed"] += 1
                if test.get("result") == "invalid":
                    invalid_refused += 1
                else:
                    valid_ok += 1
            else:
                counts["failed"] += 1
                print(f"interop: FAIL {algorithm} {path.name} tcId {test.get('tcId')}: {reason}")
    print(f"interop: {algorithm} {path.name}: {valid_ok} valid ok, {invalid_refused} invalid refused")


def main(argv=None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", default=str(DEFAULT_DIR),
                        help="folder of protocol vector files (default: TestVectors/protocol)")
    parser.add_argument("--allow-missing", action="store_true",
                        help="do not fail when an algorithm has no vectors (before the Swift "
                             "generator exists)")
    parser.add_argument("--strict-failures", action="store_true",
                        help="also require each refusal to carry the vector's failure name "
                             "(the Swift ProtocolError case)")
    args = parser.parse_args(argv)
    common.STRICT_FAILURES = args.strict_failures
    directory = Path(args.directory)
    counts, ran = {"passed": 0, "failed": 0}, {}
    if not directory.is_dir():
        print(f"interop: FAIL {directory}: not a directory")
        counts["failed"] += 1
    else:
        for path in sorted(directory.glob("*.json")):
            verify_file(path, counts, ran)
    missing = [name for name in CHECKS if not ran.get(name)]
    if missing:
        verdict = "tolerated (--allow-missing)" if args.allow_missing else "FAIL"
        print(f"interop: no vectors ran for {', '.join(missing)}: {verdict}")
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    return 0 if counts["failed"] == 0 and (args.allow_missing or not missing) else 1


if __name__ == "__main__":
    sys.exit(main())
