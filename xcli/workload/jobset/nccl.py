"""`xcli cluster test-network`, the pure part: the NCCL test each GPUDirect family runs, how its
output is read, and the verdict against the bandwidth Google published for the machine.

The test is NVIDIA's nccl-tests (https://github.com/NVIDIA/nccl-tests), as built into the
family's NCCL plugin image by Google: the TCPX image of gpudirect-tcpx/nccl-test-latest.yaml
(binaries under /third_party/nccl-tests-mpi/build, nccl-config.yaml), the TCPXO image of
gpudirect-tcpxo/nccl-test-latest.yaml, and the gIB diagnostic image of the RDMA tests
(/third_party/nccl-tests/build, sshd on port 222 from `/scripts/container_entry.sh daemon`, as
Cluster Toolkit's examples/gke-a3-ultragpu/nccl-jobset-example.yaml runs it). Worker 0 starts
one rank per GPU on every worker with mpirun over SSH on eth0, as those examples do, then tells
the other workers to finish.

Where each image's sshd listens:
- TCPXO: port 222 after `service ssh restart` (AI-Hypercomputer/gpu-recipes 2e1fd5ef,
  src/helm-charts/a3mega/nccl-tests/run_test.sh l.129 restarts it, l.49 and l.63 reach it on
  222; AI-Hypercomputer/xpk 367c8382 examples/nccl/nccl-a3mega.sh l.42 and l.69 likewise).
- TCPX: Google starts it with `service ssh restart` (container-engine-accelerators 992db812
  gpudirect-tcpx/nccl-test-latest.yaml l.98) and reaches it only through scripts inside the
  image (/scripts/init_ssh.sh, /scripts/gen_hostfiles.sh, nccl-config.yaml l.13-15), so no
  published source gives the port. Worker 0 reads it from its own sshd's effective
  configuration (`sshd -T`): every worker runs the same image and the same start command.

nccl-tests prints one row per message size, and "# Avg bus bandwidth : X" at the end
(doc/PERFORMANCE.md in nccl-tests: busbw is the figure comparable with the hardware's peak,
whatever the collective and the number of ranks, which is why all_reduce_perf is judged against
the same published all_gather figure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xcli.catalog import Accelerator, Figure
from xcli.errors import CloudError

TESTS = ("all_gather_perf", "all_reduce_perf")
DEFAULT_FRACTION = 0.5
DONE_FILE = "/dev/shm/xcli-nccl-test-done"  # in the memory-backed /dev/shm every pod has
# -b 1K to -e 8G doubling, one GPU per rank, 5 warm-up and 100 timed iterations, with the
# correctness check: the arguments of Cluster Toolkit's and Google's RDMA examples.
TEST_ARGS = "-b 1K -e 8G -f 2 -g 1 -w 5 --iters 100 -c 1"


@dataclass(frozen=True)
class FamilyTest:
    image: str
    bin_dir: str
    ssh_port: int | None  # None: read at run time from the image's sshd (TCPX, see above)
    start_sshd: str


_TCPX_IMAGE = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:v3.1.9"
_TCPXO_IMAGE = (
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15"
)
_GIB_IMAGE = "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic:v1.1.1"
_GIB_ARM_IMAGE = (
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/nccl-plugin-gib-diagnostic-arm64:v1.1.0"
)


def family_test(accel: Accelerator) -> FamilyTest:
    stack = accel.gpu_network
    if stack in ("tcpx", "tcpxo"):
        image, port = (_TCPX_IMAGE, None) if stack == "tcpx" else (_TCPXO_IMAGE, 222)
        return FamilyTest(image, "/third_party/nccl-tests-mpi/build", port, "service ssh restart")
    image = _GIB_ARM_IMAGE if accel.arch == "arm64" else _GIB_IMAGE
    return FamilyTest(
        image, "/third_party/nccl-tests/build", 222, "/scripts/container_entry.sh daemon &"
    )


# The first port the sshd's effective configuration names, 22 if none (`sshd -T` prints one
# "port N" line per port first: openssh-portable servconf.c dump_config).
_READ_PORT = """
port=$(PATH="$PATH:/usr/sbin" sshd -T 2>/dev/null | sed -n 's/^port //p' | head -n 1)
port=${port:-22}"""


def nccl_script(accel: Accelerator, nodes: int, test: str) -> str:
    """The shell every pod runs (sh -c). Worker 0 runs the test; the others serve SSH until
    worker 0 touches DONE_FILE on them. JOBSET_NAME, REPLICATED_JOB_NAME and NODE_RANK are the
    workload contract's variables (manifest.py)."""
    fam = family_test(accel)
    gpus = accel.chips_per_vm
    port = "$port" if fam.ssh_port is None else str(fam.ssh_port)
    ssh = f"ssh -q -o StrictHostKeyChecking=no -o LogLevel=ERROR -p {port}"
    return f"""set -u
{fam.start_sshd}{_READ_PORT if fam.ssh_port is None else ""}
if [ "$NODE_RANK" != 0 ]; then
  until [ -f {DONE_FILE} ]; do sleep 5; done
  exit 0
fi
hosts=""
i=0
while [ "$i" -lt {nodes} ]; do
  hosts="$hosts $JOBSET_NAME-$REPLICATED_JOB_NAME-0-$i.$JOBSET_NAME"
  i=$((i + 1))
done
: > /dev/shm/xcli-hostfile
for h in $hosts; do
  until {ssh} "$h" true; do echo "waiting for $h"; sleep 5; done
  echo "$h slots={gpus}" >> /dev/shm/xcli-hostfile
done
exports=$(env | sed -n 's/^\\(NCCL_[A-Za-z0-9_]*\\)=.*/-x \\1/p' | tr '\\n' ' ')
mpirun --allow-run-as-root --hostfile /dev/shm/xcli-hostfile -np {nodes * gpus} \\
  --mca btl tcp,self --mca btl_tcp_if_include eth0 --bind-to none \\
  --mca plm_rsh_agent "{ssh}" \\
  -x LD_LIBRARY_PATH $exports \\
  {fam.bin_dir}/{test} {TEST_ARGS}
code=$?
for h in $hosts; do {ssh} "$h" touch {DONE_FILE}; done
exit $code
"""


@dataclass(frozen=True)
class Row:
    size: int  # bytes
    busbw: float  # GB/s, the better of out-of-place and in-place
    wrong: int  # values the correctness check found wrong (0 without -c 1)


@dataclass(frozen=True)
class NcclResult:
    rows: tuple[Row, ...]
    avg_busbw: float

    @property
    def largest(self) -> Row:
        return max(self.rows, key=lambda r: r.size)

    @property
    def wrong(self) -> int:
        return sum(r.wrong for r in self.rows)


_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.]+)")


def parse_output(text: str) -> NcclResult:
    """Read nccl-tests' table: rows `size count type redop root time algbw busbw #wrong` for
    out-of-place then `time algbw busbw #wrong` in-place (13 fields), and the average line.
    Lines that are not rows (NCCL's INFO/WARN, mpirun's, '#' comments) are skipped."""
    rows: list[Row] = []
    avg: float | None = None
    for line in text.splitlines():
        found = _AVG.match(line.strip())
        if found:
            avg = float(found.group(1))
            continue
        row = _row(line.split())
        if row is not None:
            rows.append(row)
    if not rows or avg is None:
        what = "no result rows" if not rows else "no '# Avg bus bandwidth' line"
        raise CloudError(
            f"the NCCL test's output has {what}: it did not finish",
            hint="read worker 0's log above (NCCL errors, mpirun failing to reach a worker); "
            "keep the workload with --keep to look at it",
        )
    return NcclResult(tuple(rows), avg)


def _row(fields: list[str]) -> Row | None:
    if len(fields) != 13 or not fields[0].isdigit() or not fields[1].isdigit():
        return None
    try:
        busbw = max(float(fields[7]), float(fields[11]))
    except ValueError:
        return None
    return Row(int(fields[0]), busbw, _count(fields[8]) + _count(fields[12]))


def _count(text: str) -> int:
    return int(text) if text.isdigit() else 0  # "N/A" without the check


@dataclass(frozen=True)
class Verdict:
    ok: bool | None  # None: nothing to compare with
    measured: float  # GB/s at the largest size
    expected: float | None
    fraction: float
    source: str

    @property
    def ratio(self) -> float | None:
        return None if not self.expected else self.measured / self.expected


def judge(
    result: NcclResult, published: Figure | None, fraction: float, expected: float | None
) -> Verdict:
    """Bandwidth at the largest message size against `expected` (--expect-busbw) or the
    published figure; ok when at least `fraction` of it."""
    measured = result.largest.busbw
    if expected is not None:
        source = "--expect-busbw"
    elif published is not None:
        expected, source = published.value, published.source
    else:
        return Verdict(None, measured, None, fraction, "")
    return Verdict(measured >= fraction * expected, measured, expected, fraction, source)


def human_size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"
