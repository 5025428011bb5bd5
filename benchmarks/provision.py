"""Provisioning speed of `cluster create` on GKE against a local fake GKE endpoint.

    python benchmarks/provision.py [--op-seconds 2] [--limit 4] [--slices 1 8 32] [--runs 3]
        [--parallelism P]

A fake GKE API (tests/support/fake_gke.py) is served over HTTP on 127.0.0.1. Every operation
takes --op-seconds; at most --limit node-pool operations run at once, and a create beyond that
is answered 429, as GKE does. xcli runs a live `cluster create` (read what exists, plan, run the
plan through the live executor, with the real container client whose api_endpoint points at the
fake) for N slices of v6e-256 on spot capacity.

Printed per N: median wall time, the ideal (cluster operation + ceil(N / limit) node-pool
operations), their ratio, and HTTP requests per operation (operations = 1 cluster + N pools).
Targets (issue 3): wall <= 1.15x ideal; <= 3 requests per operation on average.
This is a measurement, not a test: nothing here fails.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.fake_gke import FakeGke
from xcli.catalog import lookup
from xcli.execute.live import LiveExecutor
from xcli.gateways.google.compute import ComputeGateway
from xcli.gateways.google.container import ContainerGateway
from xcli.plan.cluster import ClusterRef
from xcli.providers.gke.options import DEFAULT_POOL_PARALLELISM, GkeOptions
from xcli.providers.gke.provider import GkeProvider
from xcli.spec import Capacity, ClusterSpec


def serve(fake: FakeGke) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(size) if size else b""
            status, data = fake.handle(self.command, self.path, json.loads(raw) if raw else None)
            out = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def one_run(slices: int, op_seconds: float, limit: int, parallel: int) -> tuple[float, int, int]:
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import AuthorizedSession
    from google.cloud import container_v1

    fake = FakeGke(op_seconds=op_seconds, pool_limit=limit)
    server = serve(fake)
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        client = container_v1.ClusterManagerClient(
            credentials=AnonymousCredentials(),
            transport="rest",
            client_options={"api_endpoint": endpoint},
        )
        compute = ComputeGateway(
            AuthorizedSession(AnonymousCredentials()), endpoint=endpoint + "/compute/v1"
        )
        provider = GkeProvider(ContainerGateway(client), compute)
        spec = ClusterSpec(
            "bench", "my-project", "us-east5-b", "gke", lookup("v6e-256"), Capacity("spot"),
            num_slices=slices, options=GkeOptions(pool_parallelism=parallel),
        )  # fmt: skip
        ref = ClusterRef(spec.name, spec.project, spec.zone, "gke")
        start = time.monotonic()
        plan = provider.plan_create(spec, provider.observe(ref))
        result = LiveExecutor(provider.handlers(ref)).run(plan)
        wall = time.monotonic() - start
        assert result.ok, [(r.step.id, r.error) for r in result.by_status("failed")]
        too_many = sum(1 for m, p, _ in fake.requests if m == "POST" and "nodePools" in p) - slices
        return wall, len(fake.requests), too_many
    finally:
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--op-seconds", type=float, default=2.0)
    parser.add_argument("--limit", type=int, default=DEFAULT_POOL_PARALLELISM)
    parser.add_argument("--slices", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--parallelism", type=int, help="xcli's --pool-parallelism (default: --limit); set it "
        "above --limit to see the cost of 429 answers and backoff",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"fake GKE: every operation {args.op_seconds:g}s, at most {args.limit} node-pool "
          f"operations at once (429 beyond); median of {args.runs} runs")  # fmt: skip
    head = f"{'N':>4} {'wall s':>8} {'ideal s':>8} {'ratio':>6} {'requests':>9} {'req/op':>7}"
    print(head + f" {'429s':>5}")
    for n in args.slices:
        parallel = args.parallelism or args.limit
        runs = [one_run(n, args.op_seconds, args.limit, parallel) for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in runs)
        requests = statistics.median(r[1] for r in runs)
        refused = statistics.median(r[2] for r in runs)
        ideal = args.op_seconds * (1 + math.ceil(n / args.limit))
        ops = 1 + n
        print(f"{n:>4} {wall:>8.2f} {ideal:>8.2f} {wall / ideal:>5.2f}x {requests:>9.0f} "
              f"{requests / ops:>7.2f} {refused:>5.0f}")  # fmt: skip
    print("targets: ratio <= 1.15x, requests per operation <= 3")


if __name__ == "__main__":
    main()
