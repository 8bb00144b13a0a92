"""The Wycheproof layout rules of TestVectors/README.md, checked for one loaded vector file.

Returns a list of problems (empty when the file is well-formed): top-level keys, running
``tcId`` 1..numberOfTests, ``result`` values, flags explained in ``notes``, valid tests without
flags, invalid tests with a ``failure`` name.
"""

REQUIRED_KEYS = ("algorithm", "schema", "numberOfTests", "header", "notes", "source", "testGroups")


def layout_problems(data: dict) -> list:
    """Every layout problem of one vector file."""
    if not isinstance(data, dict):
        return ["the file is not a JSON object"]
    problems = [f"missing top-level key {key!r}" for key in REQUIRED_KEYS if key not in data]
    groups = data.get("testGroups")
    if not isinstance(groups, list):
        return problems + ["testGroups is not a list"]
    notes = data.get("notes") if isinstance(data.get("notes"), dict) else {}
    expected_id = 1
    for group in groups:
        tests = group.get("tests") if isinstance(group, dict) else None
        if not isinstance(tests, list):
            problems.append("a test group has no tests list")
            continue
        for test in tests:
            if not isinstance(test, dict):
                problems.append("a test is not an object")
                continue
            tc_id = test.get("tcId")
            if tc_id != expected_id:
                problems.append(f"tcId {tc_id!r} where {expected_id} was expected")
            expected_id += 1
            for key in ("comment", "flags", "result"):
                if key not in test:
                    problems.append(f"tcId {tc_id}: missing {key!r}")
            flags, result = test.get("flags", []), test.get("result")
            if result not in ("valid", "invalid"):
                problems.append(f"tcId {tc_id}: result {result!r} is neither valid nor invalid")
            if not isinstance(flags, list):
                problems.append(f"tcId {tc_id}: flags is not a list")
                continue
            for flag in flags:
                if flag not in notes:
                    problems.append(f"tcId {tc_id}: flag {flag!r} is not explained in notes")
            if result == "valid" and flags:
                problems.append(f"tcId {tc_id}: a valid test has flags")
            if result == "invalid" and not isinstance(test.get("failure"), str):
                problems.append(f"tcId {tc_id}: an invalid test has no failure name")
    if data.get("numberOfTests") != expected_id - 1:
        problems.append(f"numberOfTests is {data.get('numberOfTests')!r}, the file has {expected_id - 1}")
    return problems
