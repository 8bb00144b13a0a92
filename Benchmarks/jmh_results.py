"""Reads package-benchmark's JMH exports for the table scripts (overhead.sh, protocol-floor.sh,
keystore.sh): one record per benchmark, keyed by the name it was registered under."""
import json


def _percentiles(element, label):
    for name, values in element.get("secondaryMetrics", {}).items():
        if name.lower() == label:
            return values["scorePercentiles"]
    return None


def load(paths):
    """{name: {"wall": µs percentiles, "mallocs": percentiles or None, "samples": int or None}}
    for every benchmark in the exports at `paths` that has a wall-clock metric."""
    results = {}
    for path in paths:
        with open(path) as f:
            elements = json.load(f)
        for element in elements:
            # "package.benchmark.<target>.<name with spaces as _>"; our names contain no "_".
            name = element["benchmark"].split(".", 3)[-1].replace("_", " ")
            wall = _percentiles(element, "time (wall clock)")
            if wall is None:
                continue
            results[name] = {
                "wall": wall,
                "mallocs": _percentiles(element, "malloc (total)"),
                "samples": element.get("measurementIterations"),
            }
    return results


def per_operation(record):
    """Median and minimum in ns per operation (one operation per sample; JMH stores wall clock
    in microseconds) and the median malloc count."""
    wall, mallocs = record["wall"], record["mallocs"]
    return {
        "p50": wall["50.0"] * 1000, "min": wall["0.0"] * 1000,
        "mallocs": mallocs["50.0"] if mallocs else float("nan"),
    }
