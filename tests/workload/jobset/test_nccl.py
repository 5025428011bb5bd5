"""nccl-tests output parsing, the verdict against the published figure, and the test script."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.workload.jobset.nccl_samples import GPUDIRECT, TCP_FALLBACK, WRONG_VALUES
from xcli.catalog import Figure, lookup, published_busbw
from xcli.errors import CloudError
from xcli.workload.jobset.nccl import family_test, human_size, judge, nccl_script, parse_output


def test_parses_every_row_and_the_average() -> None:
    result = parse_output(GPUDIRECT)
    assert len(result.rows) == 24  # 1 KiB .. 8 GiB, doubling
    assert result.rows[0].size == 1024 and result.rows[0].busbw == 0.02
    # the better of out-of-place (71.97) and in-place (72.19) at the largest size
    assert result.largest.size == 8 << 30 and result.largest.busbw == 72.19
    assert result.avg_busbw == 35.9023
    assert result.wrong == 0


def test_skips_nccl_and_mpirun_chatter() -> None:
    noisy = "\n".join(
        ["[1,0]<stdout>: warning", "host:61:61 [0] NCCL INFO Channel 00/02 :    0   1", GPUDIRECT]
    )
    assert parse_output(noisy) == parse_output(GPUDIRECT)


def test_counts_wrong_values() -> None:
    assert parse_output(WRONG_VALUES).wrong == 3


@pytest.mark.parametrize(
    "text",
    [
        "",  # nothing printed: mpirun failed
        GPUDIRECT.split("# Out of bounds")[0],  # cut off before the average line
        "# Avg bus bandwidth    : 1.0\n",  # an average but no rows
    ],
)
def test_an_unfinished_run_is_an_error(text: str) -> None:
    with pytest.raises(CloudError, match="did not finish"):
        parse_output(text)


def test_published_figures_come_from_the_catalogue() -> None:
    a3_high = published_busbw(lookup("h100-80gb-8"))
    assert a3_high is not None and a3_high.value == 70.9 and a3_high.unit == "GB/s"
    assert "cluster-toolkit" in a3_high.source
    assert published_busbw(lookup("h100-mega-80gb-8")).value == 188.7  # type: ignore[union-attr]
    assert published_busbw(lookup("h200-141gb-8")).value == 328.9  # type: ignore[union-attr]
    assert published_busbw(lookup("b200-8")) is None  # not published
    assert published_busbw(lookup("v6e-8")) is None


def test_verdict() -> None:
    published = Figure(70.9, "GB/s", "https://example.org/figure")
    good = judge(parse_output(GPUDIRECT), published, 0.5, None)
    assert good.ok is True and good.measured == 72.19 and good.expected == 70.9
    assert good.ratio == pytest.approx(72.19 / 70.9)
    bad = judge(parse_output(TCP_FALLBACK), published, 0.5, None)
    assert bad.ok is False and bad.measured == 2.61
    # exactly at the fraction passes; just under fails
    assert judge(parse_output(GPUDIRECT), None, 0.5, 144.38).ok is True
    assert judge(parse_output(GPUDIRECT), None, 0.5, 144.4).ok is False
    # --expect-busbw replaces the published figure, or stands in where none is published
    own = judge(parse_output(GPUDIRECT), None, 0.9, 100.0)
    assert own.ok is False and own.source == "--expect-busbw"
    unknown = judge(parse_output(GPUDIRECT), None, 0.5, None)
    assert unknown.ok is None and unknown.ratio is None


def test_the_script_runs_the_family_test_from_worker_0() -> None:
    script = nccl_script(lookup("h200-141gb-8"), 4, "all_reduce_perf")
    assert "/scripts/container_entry.sh daemon &" in script  # the gIB image's sshd
    assert "-p 222" in script and "-np 32" in script
    assert "/third_party/nccl-tests/build/all_reduce_perf -b 1K -e 8G -f 2 -g 1" in script
    assert 'while [ "$i" -lt 4 ]' in script
    assert family_test(lookup("gb200-4")).image.endswith("diagnostic-arm64:v1.1.0")
    tcpx = nccl_script(lookup("h100-80gb-8"), 2, "all_gather_perf")
    assert "service ssh restart" in tcpx and '-p $port "$h" true' in tcpx and "slots=8" in tcpx
    assert (
        '--mca plm_rsh_agent "ssh -q -o StrictHostKeyChecking=no -o LogLevel=ERROR -p $port"'
        in tcpx
    )
    assert "/third_party/nccl-tests-mpi/build/all_gather_perf" in tcpx
    # the TCPXO image serves ssh on 222 after `service ssh restart` (gpu-recipes run_test.sh)
    tcpxo = nccl_script(lookup("h100-mega-80gb-8"), 2, "all_gather_perf")
    assert "service ssh restart\n" in tcpxo and "sshd -T" not in tcpxo
    assert '-p 222 "$h" true' in tcpxo and "-p 22 " not in tcpxo and "$port" not in tcpxo
    assert family_test(lookup("h100-mega-80gb-8")).ssh_port == 222


@pytest.mark.parametrize(
    ("dump", "port"),
    [("port 222\naddressfamily any\n", "222"), ("port 2022\nport 22\n", "2022"), ("", "22")],
)
def test_the_tcpx_script_reaches_the_port_its_sshd_serves(
    tmp_path: Path, dump: str, port: str
) -> None:
    """The TCPX script's first lines run in a real sh, with an `sshd` that prints `sshd -T`'s
    dump format; worker 0 then connects to the port read."""
    fake = tmp_path / "sshd"
    fake.write_text(f"#!/bin/sh\n[ \"$1\" = -T ] && printf '{dump}'\n")
    fake.chmod(0o755)
    script = nccl_script(lookup("h100-80gb-8"), 2, "all_gather_perf")
    head = script.split("\nif ", 1)[0].replace("service ssh restart", ":")
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    out = subprocess.run(
        ["sh", "-c", head + '\necho "$port"'], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == port


def test_human_size() -> None:
    assert human_size(8 << 30) == "8 GiB"
    assert human_size(512 << 20) == "512 MiB"
    assert human_size(1000) == "1000 B"
