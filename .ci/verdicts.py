"""The verdicts of the README example and the SLA examples, written down and compared between installs.

Runs ``dqx-gx validate ... --now 2026-11-22T12:00:00Z --output json`` on each example contract and each of its
data files (the README's orders on good and bad data, every SLA example on each of its batches), in one
process and one Spark session, and keeps per rule its status and observed value and per run its outcome.

  python .ci/verdicts.py OUT.json                          # write this install's verdicts
  python .ci/verdicts.py OUT.json --against DEFAULT.json   # and fail (exit 1) naming every difference
  python .ci/verdicts.py OUT.json --remote --against ...   # the same through a Spark Connect server it starts

.ci/run writes the default install's and compares each lane of its version matrix with them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-11-22T12:00:00Z"


def examples() -> list[tuple[Path, Path]]:
    """Each example contract with each batch of data it is meant for."""
    orders = ROOT / "examples" / "orders"
    pairs = [(orders / "orders.odcs.yaml", orders / "data" / name) for name in ("good.parquet", "bad.parquet")]
    sla = ROOT / "examples" / "sla"
    for contract in sorted(sla.glob("*.yaml")):
        stem = contract.name.split(".")[0]
        pairs += [(contract, data) for data in sorted((sla / "data").glob(f"{stem}-*.parquet"))]
    return pairs


def verdicts(remote: str | None) -> dict[str, Any]:
    """Run name (contract and data) → its exit code, outcome and per rule (status, observed value)."""
    from dqx_gx.cli import main  # noqa: PLC0415  imported by the install under test, after the arguments

    found: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        for contract, data in examples():
            output = Path(folder) / "out.json"
            argv = ["validate", str(contract), "--data", str(data), "--now", NOW, "--output", "json"]
            argv += ["--output-file", str(output), *(["--remote", remote] if remote else [])]
            code = main(argv)
            report = json.loads(output.read_text())
            runs = report.get("runs", [report])
            found[f"{contract.relative_to(ROOT)} on {data.name}"] = {
                "exit": code,
                "outcomes": [run["outcome"] for run in runs],
                "rules": {
                    result["assertion"]: [result["status"], result["observed"]]
                    for run in runs
                    for result in run["results"]
                },
            }
    return found


def differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """Every run, outcome and rule whose verdict differs, one line each."""
    lines = [f"{name}: only in one install" for name in sorted(ours.keys() ^ theirs.keys())]
    for name in sorted(ours.keys() & theirs.keys()):
        mine, other = ours[name], theirs[name]
        for part in ("exit", "outcomes"):
            if mine[part] != other[part]:
                lines.append(f"{name}: {part} {mine[part]} here, {other[part]} in the default install")
        for rule in sorted(mine["rules"].keys() | other["rules"].keys()):
            here, there = mine["rules"].get(rule), other["rules"].get(rule)
            if here != there:
                lines.append(f"{name}: {rule!r} {here} here, {there} in the default install")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="where to write this install's verdicts (JSON)")
    parser.add_argument("--against", type=Path, help="the default install's verdicts: fail on any difference")
    parser.add_argument("--remote", action="store_true", help="run through a Spark Connect server started here")
    args = parser.parse_args()
    if args.remote:
        sys.path.insert(0, str(ROOT))
        from tests.spark_servers import start_connect_server  # noqa: PLC0415  from the repository, on its path now

        with tempfile.TemporaryDirectory() as workdir:
            server = start_connect_server(Path(workdir))
            try:
                found = verdicts(server.url)
            finally:
                server.stop()
    else:
        found = verdicts(None)
    args.out.write_text(json.dumps(found, indent=1, sort_keys=True, default=str))
    print(f"verdicts: {len(found)} runs, {sum(len(run['rules']) for run in found.values())} rules -> {args.out}")
    if args.against is None:
        return 0
    lines = differences(found, json.loads(args.against.read_text()))
    for line in lines:
        print(f"verdicts differ: {line}", file=sys.stderr)
    print(f"verdicts: {'the same as' if not lines else f'{len(lines)} differences from'} {args.against}")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
