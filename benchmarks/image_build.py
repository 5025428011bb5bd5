"""`workload create --script-dir` image builds against a local registry: xcli cold, warm and
after a one-file change, beside a baseline that does what XPK's path does, in one run.

    pip install -e '.[test]'
    python benchmarks/image_build.py [--mb 200] [--files 3000] [--reps 3] [--content text]

Needs Debian's `docker-registry` (scripts/test.sh installs it). Starts it on 127.0.0.1 with a
temporary storage folder (the helper the tests use), pushes a small two-platform base, writes
a folder of --files files totalling --mb MB (random bytes: incompressible, like weights; with
`--content text`, source-like text that gzip halves, where the compressor's speed shows), and
per repetition runs, in this order:

  xcli-cold      an empty build cache and a new target repository (the base layer is mounted)
  xcli-warm      the same folder again: the cache answers, every blob is already there
  xcli-one-file  one file rewritten (same size, new bytes), then the build
  xpk-like       what XPK's `--base-docker-image` path does (AI-Hypercomputer/xpk at
                 367c838253be, src/xpk/core/docker_image.py, then `crane mutate --append`):
                 one uncompressed tar of the whole folder with the files' own float mtimes,
                 here made fresh as a checkout or an editor would, gzipped at level 1 as crane
                 does, pushed under a new tag every time. Done with the same registry client,
                 so the difference is the layering and the cache, not the HTTP code.
  loopback       one blob of xcli-cold's bytes sent by a single monolithic PUT: the floor

Reported: wall time of the build and push (interpreter start excluded), split into pack (scan,
tar, gzip, hashes: no network) and push; the CPU time this process spent (every thread) and the
registry process spent in the same window (/proc/PID/stat), so a run on a busy machine still
says what the work cost; blob bytes sent; medians over --reps, and the machine's load average
before and after. Targets: warm under 1 s, one-file change under 5 % of the cold bytes (issue
24), cold within 2x of loopback (issue 36). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import resource
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.registry import push_base, start_registry  # noqa: E402
from xcli.execute.live import LiveExecutor  # noqa: E402
from xcli.gateways.registry.client import Registry  # noqa: E402
from xcli.gateways.registry.push import ImageHandlers  # noqa: E402
from xcli.image import build, oci  # noqa: E402
from xcli.image.layers import Layer, Store  # noqa: E402
from xcli.image.reference import ImageRef  # noqa: E402
from xcli.plan.model import Plan  # noqa: E402


def make_folder(root: Path, total_mb: int, files: int, content: str = "random") -> list[Path]:
    rng = random.Random(24)
    sizes = [rng.uniform(0.2, 1.8) for _ in range(files)]
    scale = total_mb * 1024**2 / sum(sizes)
    pool = _text(rng) if content == "text" else b""
    paths = []
    for i, size in enumerate(sizes):
        path = root / f"pkg{i % 40:02d}" / f"sub{i % 7}" / f"file{i:05d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        n = int(size * scale)
        if pool:  # a slice of the pool from a random offset: deflate's window is 32 KiB
            start = rng.randrange(len(pool) - n) if n < len(pool) else 0
            path.write_bytes((pool * (1 + n // len(pool)))[start : start + n])
        else:
            path.write_bytes(os.urandom(n))
        paths.append(path)
    return paths


def _text(rng: random.Random) -> bytes:
    """8 MiB of source-like text: lines of identifiers and operators from a 5000-word list."""
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(2, 12)))
             for _ in range(5000)]  # fmt: skip
    ops = [" = ", "(", ")", ", ", ".", " + ", ": ", "[", "]"]
    lines, size = [], 0
    while size < 8 * 1024**2:
        line = "    " * rng.randint(0, 3) + "".join(
            rng.choice(words) + rng.choice(ops) for _ in range(rng.randint(2, 9))
        )
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines).encode()


PHASES: dict[str, list[float]] = {}  # contender -> the pack phase's seconds, per repetition
PACK_CPU: dict[str, list[float]] = {}  # contender -> the pack phase's CPU seconds


class Clock:
    """Wall time and CPU time (this process, every thread; the registry process) between
    start() and stop()."""

    def __init__(self, registry_pid: int) -> None:
        self.pid = registry_pid
        self.wall = self.cpu = self.registry_cpu = 0.0

    def _now(self) -> tuple[float, float, float]:
        own = resource.getrusage(resource.RUSAGE_SELF)
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        theirs = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return time.perf_counter(), own.ru_utime + own.ru_stime, theirs

    def start(self) -> None:
        self._start = self._now()
        self.cpu_start = self._start[1]

    def cpu_now(self) -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        return own.ru_utime + own.ru_stime

    def stop(self) -> tuple[float, float, float]:
        end = self._now()
        spent = (b - a for a, b in zip(self._start, end, strict=True))
        self.wall, self.cpu, self.registry_cpu = spent
        return self.wall, self.cpu, self.registry_cpu


Row = tuple[float, int, float, float]  # wall s, bytes sent, CPU s here, CPU s in the registry


def xcli_build(
    folder: Path, host: str, repo: str, cache: Path, name: str, clock: Clock
) -> tuple[float, int]:
    clock.start()
    start = time.perf_counter()
    request = build.BuildRequest(
        folder, f"{host}/library/base:1", "linux/amd64", f"{host}/{repo}", "bench-runner"
    )
    built = build.prepare(request, Store(cache))
    PHASES.setdefault(name, []).append(time.perf_counter() - start)  # read, tar, gzip
    PACK_CPU.setdefault(name, []).append(clock.cpu_now() - clock.cpu_start)
    result = LiveExecutor(ImageHandlers().handlers()).run(Plan("b", built.steps))
    seconds = clock.stop()[0]
    for step in result.results.values():
        if step.error is not None:
            raise step.error
    return seconds, int(result.results["build"].outputs["uploaded_bytes"])


def xpk_like(folder: Path, host: str, work: Path, clock: Clock) -> tuple[float, int]:
    now = time.time()
    for path in folder.rglob("*"):  # fresh float mtimes, as after a checkout or a save
        os.utime(path, (now, now + random.random()))
    clock.start()
    raw = work / "archive.tar"
    with tarfile.open(raw, "w") as tar:  # XPK: tarfile.open(path, 'w'), PAX, real mtimes
        for path in sorted(folder.rglob("*")):
            info = tar.gettarinfo(str(path), f"app/{path.relative_to(folder)}")
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            if info.isfile():
                with path.open("rb") as src:
                    tar.addfile(info, src)
            else:
                tar.addfile(info)
    gz, sha, diff = work / "layer.gz", hashlib.sha256(), hashlib.sha256()
    with raw.open("rb") as src, gz.open("wb") as out:
        packed = gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0)
        while chunk := src.read(1024**2):
            diff.update(chunk)
            packed.write(chunk)
        packed.close()
    sha.update(gz.read_bytes())
    layer = Layer(
        "all", f"sha256:{diff.hexdigest()}", f"sha256:{sha.hexdigest()}", gz.stat().st_size, 0
    )
    reg = Registry()
    base, dest = ImageRef(host, "library/base", tag="1"), ImageRef(host, "xpk/runner")
    raw_index, _, _ = reg.manifest(base, "1", oci.ACCEPT)
    child = oci.choose(json.loads(raw_index), "linux/amd64", str(base))
    manifest_raw, _, _ = reg.manifest(base, str(child["digest"]), oci.ACCEPT)
    manifest = json.loads(manifest_raw)
    config = reg.blob(base, manifest["config"]["digest"])
    new_config, new_manifest = oci.compose(manifest, oci.OCI_MANIFEST, config, [layer], "xpk")
    cfg = work / "config.json"
    cfg.write_bytes(new_config)
    for digest, path in ((layer.digest, gz), (oci.digest_of(new_config), cfg)):
        if not reg.has_blob(dest, digest):
            location = reg.start(dest, digest)
            assert location is not None
            reg.upload(dest, digest, path, location)
    for blob in manifest["layers"]:
        if not reg.has_blob(dest, blob["digest"]):
            reg.start(dest, blob["digest"], mount_from=base.name)
    reg.put_manifest(dest, f"t{time.time_ns()}", new_manifest, oci.OCI_MANIFEST)
    return clock.stop()[0], reg.sent


def loopback(host: str, size: int, clock: Clock) -> float:
    import requests

    data = os.urandom(size)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    clock.start()
    resp = requests.post(f"http://{host}/v2/floor/blob/blobs/uploads/", timeout=60)
    location = resp.headers["Location"]
    url = location if location.startswith("http") else f"http://{host}{location}"
    sep = "&" if "?" in url else "?"
    done = requests.put(f"{url}{sep}digest={digest}", data=data, timeout=600)
    assert done.status_code == 201, done.text
    return clock.stop()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--content", choices=("random", "text"), default="random")
    args = parser.parse_args()
    load_before = os.getloadavg()
    rows: dict[str, list[Row]] = {}
    with tempfile.TemporaryDirectory(prefix="xcli-image-bench-") as tmp:
        work = Path(tmp)
        registry = start_registry(work / "registry")
        assert registry.process is not None
        clock = Clock(registry.process.pid)

        def row(name: str, result: tuple[float, int]) -> None:
            rows.setdefault(name, []).append((*result, clock.cpu, clock.registry_cpu))

        try:
            host = registry.host
            push_base(host, "library/base", "1")
            folder = work / "src"
            paths = make_folder(folder, args.mb, args.files, args.content)
            for rep in range(args.reps):
                cache = work / f"cache{rep}"
                row("xcli-cold", xcli_build(folder, host, f"cold{rep}", cache, "xcli-cold", clock))
                row("xcli-warm", xcli_build(folder, host, f"cold{rep}", cache, "xcli-warm", clock))
                victim = paths[rep * 97 % len(paths)]
                victim.write_bytes(os.urandom(victim.stat().st_size))
                one = xcli_build(folder, host, f"cold{rep}", cache, "xcli-one-file", clock)
                row("xcli-one-file", one)
                row("xpk-like", xpk_like(folder, host, work, clock))
                cold_bytes = rows["xcli-cold"][-1][1]
                row("loopback", (loopback(host, cold_bytes, clock), cold_bytes))
        finally:
            registry.stop()
    load_after = os.getloadavg()
    print(
        f"{args.mb} MB of {args.content} in {args.files} files, {args.reps} repetitions, medians; "
        f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}, "
        f"{os.cpu_count()} cores"
    )
    print("| contender | wall time (s) | pack (s) | push (s) | CPU xcli (s) (pack) "
          "| CPU registry (s) | bytes sent (MB) | bytes vs cold | wall vs loopback "
          "| CPU vs loopback |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    cold = statistics.median(r[1] for r in rows["xcli-cold"])
    floor = statistics.median(r[0] for r in rows["loopback"])
    floor_cpu = statistics.median(r[2] + r[3] for r in rows["loopback"])
    for name, values in rows.items():
        secs = statistics.median(r[0] for r in values)
        sent = statistics.median(r[1] for r in values)
        own = statistics.median(r[2] for r in values)
        theirs = statistics.median(r[3] for r in values)
        both = statistics.median(r[2] + r[3] for r in values)
        pack = statistics.median(PHASES[name]) if name in PHASES else None
        phases = f"{pack:.2f} | {secs - pack:.2f}" if pack is not None else "- | -"
        ratios = f"{secs / floor:.2f}x | {both / floor_cpu:.2f}x"
        packed = f" ({statistics.median(PACK_CPU[name]):.2f})" if name in PACK_CPU else ""
        print(f"| {name} | {secs:.2f} | {phases} | {own:.2f}{packed} | {theirs:.2f} "
              f"| {sent / 1e6:.1f} "
              f"| {100 * sent / cold:.1f} % | {ratios} |")  # fmt: skip
    report: dict[str, Any] = {k: [list(v) for v in vals] for k, vals in rows.items()}
    report["pack"] = PHASES
    print(json.dumps(report))


if __name__ == "__main__":
    main()
