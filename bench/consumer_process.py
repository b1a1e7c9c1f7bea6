"""The rank-counter function in a process of its own, as on AWS it runs in Lambda instances of its own: the load
benchmark's writers and the stream consumer do not share an interpreter (nor its lock).

`python -m bench.consumer_process ENDPOINT COMMIT_MS`: polls the scores table's stream on the running DynamoDB
Local, under the same AWS model as the writers; prints `ready`; on a line `settle` on stdin, waits until it has
counted every record, prints one JSON line (catch-up time, counters' lag, its own requests and units), exits.
"""

from __future__ import annotations

import json
import sys
import time

import bench  # noqa: F401  (puts lambda_src on sys.path)
from bench import environment
from bench.aws_model import AwsModel
from bench.metering import CONSUMER_THREADS, ThreadMeter, attach


def main(endpoint: str, commit_ms: float, throughput: bool) -> int:
    env = environment.connect(endpoint)
    from local import invocation

    AwsModel(commit_ms, throughput).attach(invocation.runtime().dynamodb)
    meter = ThreadMeter(only=CONSUMER_THREADS)
    attach(invocation.runtime().dynamodb, meter)
    poller = env.start_consumer()
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "settle":
            started = time.monotonic()
            poller.settle(timeout=900)
            usage = meter.take()
            print(
                json.dumps(
                    {
                        "catch_up_seconds": round(time.monotonic() - started, 2),
                        "oldest_record_counted_seconds": round(poller.oldest_record_age, 2),
                        "requests": usage.requests,
                        "read_units": usage.read_units,
                        "write_units": usage.write_units,
                    }
                ),
                flush=True,
            )
            break
    poller.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1"))
