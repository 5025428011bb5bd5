"""Start-up time and memory of xcli against xpk 1.16.0, side by side in one run.

    python benchmarks/startup.py [--runs 15] [--xpk PATH_TO_XPK | --no-xpk]

Measures, for each command, the wall time and the peak resident memory of the child process
(from wait4), interleaving the tools run by run so that machine load affects both alike, and
prints medians and ratios. Without --xpk it installs xpk 1.16.0 into benchmarks/.peers/xpk
(a virtual environment of its own; the package registry must be reachable). xpk's telemetry is
switched off (TELEMETRY_ENABLED=false and send-telemetry false in a private config).

Targets (issue: foundation): `xcli --help` median <= 80 ms, >= 15x faster than `xpk --help`,
peak memory of `xcli --help` < 40 MB. Listings (issue 12): `xcli catalog list` with its output
piped (read by this script through a pipe, as `| cat` would) and `xcli catalog list -o json`
cost at most 2x `xcli --help`. --no-xpk measures xcli alone (no peer to install). This is a
measurement, not a test: nothing here fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
XPK_VERSION = "1.16.0"

DRY_ARGS = [
    "--cluster",
    "demo",
    "--tpu-type",
    "v6e-256",
    "--num-slices",
    "2",
    "--spot",
    "--project",
    "my-project",
    "--zone",
    "us-east5-b",
    "--dry-run",
]


def find_xcli() -> str:
    exe = shutil.which("xcli") or str(Path(sys.executable).parent / "xcli")
    if not Path(exe).exists():
        sys.exit("xcli is not installed in this environment: pip install -e . first")
    return exe


def ensure_xpk(path: str | None) -> str:
    if path:
        return path
    env_dir = HERE / ".peers" / "xpk"
    exe = env_dir / "bin" / "xpk"
    if not exe.exists():
        print(
            f"installing xpk {XPK_VERSION} into {env_dir.relative_to(HERE.parent)} ...",
            file=sys.stderr,
        )
        venv.EnvBuilder(with_pip=True).create(env_dir)
        subprocess.run(
            [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", f"xpk=={XPK_VERSION}"],
            check=True,
        )
    return str(exe)


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB, exit code) of one run."""
    start = time.perf_counter()
    # stdout is a pipe read to the end, as `xcli ... | cat` has it (not a terminal)
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    while proc.stdout.read(65536):
        pass
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--xpk", help="path to an xpk executable (default: install 1.16.0)")
    parser.add_argument("--no-xpk", action="store_true", help="measure xcli alone")
    args = parser.parse_args()

    xcli = find_xcli()
    xpk = None if args.no_xpk else ensure_xpk(args.xpk)
    home = Path(tempfile.mkdtemp(prefix="xcli-bench-"))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TELEMETRY_ENABLED": "false",
        "XCLI_HOME": str(home / "state"),
    }
    (home / ".config" / "xpk").mkdir(parents=True)
    # xpk's own config format (what `xpk config set send-telemetry false` writes)
    (home / ".config" / "xpk" / "config.yaml").write_text(
        "version: v1\nconfigs:\n  send-telemetry: 'false'\n"
    )

    cases = {
        "xcli --help": [xcli, "--help"],
        "xcli catalog list | cat": [xcli, "catalog", "list"],
        "xcli catalog list -o json": [xcli, "catalog", "list", "-o", "json"],
        "xcli cluster create --dry-run": [xcli, "cluster", "create", *DRY_ARGS],
    }
    if xpk is not None:
        cases["xpk --help"] = [xpk, "--help"]
        cases["xpk cluster create --dry-run"] = [xpk, "cluster", "create", *DRY_ARGS]
    samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name in cases}
    for argv in cases.values():  # one warm-up each (bytecode caches, page cache)
        run_once(argv, env)
    for _ in range(args.runs):
        for name, argv in cases.items():
            samples[name].append(run_once(argv, env))
    shutil.rmtree(home, ignore_errors=True)

    peer = f"; xpk {XPK_VERSION}" if xpk else ""
    print(
        f"runs per command: {args.runs}; machine: {os.cpu_count()} cores; "
        f"python {sys.version.split()[0]}{peer}"
    )
    print(
        f"{'command':34} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'peak MiB':>9} {'exit':>5}"
    )
    medians: dict[str, float] = {}
    for name, rows in samples.items():
        walls = [r[0] * 1000 for r in rows]
        medians[name] = statistics.median(walls)
        rss = statistics.median(r[1] for r in rows)
        codes = sorted({r[2] for r in rows})
        print(
            f"{name:34} {medians[name]:10.1f} {min(walls):8.1f} {max(walls):8.1f} "
            f"{rss:9.1f} {','.join(map(str, codes)):>5}"
        )
    help_ms = medians["xcli --help"]
    help_rss = statistics.median(r[1] for r in samples["xcli --help"])
    print()
    if xpk is not None:
        for what in ("--help", "cluster create --dry-run"):
            ratio = medians[f"xpk {what}"] / medians[f"xcli {what}"]
            print(f"xpk {what} / xcli {what}: {ratio:.1f}x")
        ratio = medians["xpk --help"] / help_ms
        print()
        print(
            f"target >= 15x faster than xpk --help: {'met' if ratio >= 15 else 'NOT met'} "
            f"({ratio:.1f}x)"
        )
    print(f"target xcli --help <= 80 ms: {'met' if help_ms <= 80 else 'NOT met'} ({help_ms:.1f})")
    for listing in ("xcli catalog list | cat", "xcli catalog list -o json"):
        times = medians[listing] / help_ms
        print(
            f"target {listing} <= 2x xcli --help: {'met' if times <= 2 else 'NOT met'} "
            f"({times:.2f}x)"
        )
    print(
        f"target --help peak memory < 40 MB: {'met' if help_rss < 40 else 'NOT met'} "
        f"({help_rss:.1f} MiB)"
    )


if __name__ == "__main__":
    main()
