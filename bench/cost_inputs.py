"""Per warm invocation: local time, log bytes and lines, database round trips, SQS body bytes.

Runs the chat proxy, authorizer and worker handlers in this process as Lambda would
(tests/support), and the streamed chat's app as uvicorn would, against moto's SQS and a
stub upstream. --sqld: a real sqld behind the tests' relay, which counts the HTTP round
trips; otherwise a local libSQL file. Run from the checkout's root.
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [".", "layers/engram"]
tmp = Path(tempfile.mkdtemp())
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_LAMBDA_FUNCTION_NAME": "engram-cost",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "POWERTOOLS_SERVICE_NAME": "engram",
        "POWERTOOLS_METRICS_NAMESPACE": "Engram",
        "ENGRAM_ADMIN_TOKEN": "cost-admin",
        "ENGRAM_DB_URL": f"file:{tmp / 'engram.db'}",
        "ENGRAM_DATA_DIR": str(tmp),
    }
)
relay = None
if "--sqld" in sys.argv:
    import atexit

    from shared.devtools.sqld import SqldServer
    from tests.support.relay import Relay

    sqld = SqldServer(tmp).start()
    atexit.register(sqld.stop)
    relay = Relay("127.0.0.1", sqld.port).start()
    os.environ["ENGRAM_DB_URL"] = relay.url
    os.environ["ENGRAM_SECRETS_KEY"] = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

import boto3  # noqa: E402 - after the environment above, as Lambda sets it first
from moto import mock_aws  # noqa: E402

TEXTS = [
    "I prefer TypeScript. I'll use Postgres for this project.",
    "My daughter starts school in September, so mornings are busy. A quick breakfast?",
    "I'm allergic to peanuts and I live in Lisbon. What should I order at a Thai place?",
    "We deploy on Fridays at 4pm, which I hate. How do I argue for a change freeze?",
    "I run 10 km every Sunday and I'm training for a half marathon in May. Plan my week?",
]
rows: dict[str, list[tuple[float, int, int, int]]] = {}


def run(name, fn, *args, **kwargs):
    out, trips = io.StringIO(), relay.requests if relay else 0
    with contextlib.redirect_stdout(out):
        began = time.perf_counter()
        result = fn(*args, **kwargs)
        seconds = time.perf_counter() - began
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    trips = (relay.requests - trips) if relay else 0
    rows.setdefault(name, []).append((seconds, len(out.getvalue().encode()), len(lines), trips))
    return result


with mock_aws():
    sqs = boto3.client("sqs")
    queues = {n: sqs.create_queue(QueueName=n)["QueueUrl"] for n in ("extraction", "embedding")}
    os.environ["ENGRAM_EXTRACTION_QUEUE_URL"] = queues["extraction"]
    os.environ["ENGRAM_EMBEDDING_QUEUE_URL"] = queues["embedding"]
    from starlette.testclient import TestClient

    from engram import Config, MemorySettingsUpdate, open_engine
    from engram.domain.models import ApiKeyCreate
    from shared.observability import logger
    from tests.support.lambda_support import LambdaContext, load_event, load_function
    from tests.support.upstream_stub import StubUpstream

    admin = open_engine(Config(db_url=os.environ["ENGRAM_DB_URL"]))
    key = admin.keys.create(ApiKeyCreate(name="cost"))
    admin.settings.update(MemorySettingsUpdate(enabled=True))  # storeConversation: default on
    admin.close()
    with StubUpstream(record=False) as stub:
        os.environ["ENGRAM_UPSTREAM_BASE_URL"] = stub.url
        chat, gate = load_function("chat_proxy"), load_function("api_authorizer")
        stream = TestClient(load_function("chat_stream").app)
        workers = {
            "extraction": load_function("extraction_worker"),
            "embedding": load_function("embedding_worker"),
        }
        for i in range(105):  # the first 5 warm the engines up and are dropped below
            event = load_event("chat_proxy_completion")
            event["headers"]["authorization"] = f"Bearer {key.secret}"
            event["body"] = json.dumps(
                {"model": "m", "messages": [{"role": "user", "content": TEXTS[i % len(TEXTS)]}]}
            )
            assert run("chat proxy", chat.handler, event, LambdaContext())["statusCode"] == 200
            body = {
                "model": "m",
                "stream": True,
                "messages": [{"role": "user", "content": TEXTS[(i + 2) % len(TEXTS)]}],
            }
            logger.clear_state()  # uvicorn's process has no handler, so no Lambda context keys
            headers = {"authorization": f"Bearer {key.secret}", "x-engram-api-key": key.secret}
            response = run(
                "chat stream", stream.post, "/v1/chat/completions", json=body, headers=headers
            )
            assert response.status_code == 200
            event = load_event("api_authorizer_request")
            event["headers"]["authorization"] = f"Bearer {key.secret}"
            assert run("authorizer", gate.handler, event, LambdaContext())["isAuthorized"]
            for kind, worker in workers.items():  # batches of one, as at low traffic
                for m in sqs.receive_message(QueueUrl=queues[kind]).get("Messages", []):
                    rows.setdefault(f"{kind} job (SQS body)", []).append(
                        (0.0, len(m["Body"].encode()), 0, 0)
                    )
                    record = {
                        "messageId": m["MessageId"],
                        "receiptHandle": m["ReceiptHandle"],
                        "body": m["Body"],
                        "attributes": {},
                        "messageAttributes": {},
                        "md5OfBody": m["MD5OfBody"],
                        "eventSource": "aws:sqs",
                        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:q",
                        "awsRegion": "us-east-1",
                    }
                    run(f"{kind} worker", worker.handler, {"Records": [record]}, LambdaContext())
                    sqs.delete_message(QueueUrl=queues[kind], ReceiptHandle=m["ReceiptHandle"])

print(f"{'invocation':<26}{'n':>5}{'ms':>8}{'log bytes':>11}{'lines':>7}{'db trips':>10}")
for name, values in rows.items():
    values, n = values[5:], len(values) - 5
    mean = [sum(v[i] for v in values) / n for i in range(4)]
    print(f"{name:<26}{n:>5}{mean[0] * 1000:>8.1f}{mean[1]:>11.0f}{mean[2]:>7.1f}{mean[3]:>10.1f}")
