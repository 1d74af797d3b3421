"""The scheduled functions with what EventBridge Scheduler really sends: the schedule's
``Input`` from template.yaml, its context attributes filled in (not an EventBridge event)."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from engram import Config, open_engine, reset_engines
from engram.domain.models import MemoryCreate
from shared.devtools.template import load_template
from shared.schedules import InvalidSchedule, scheduled_handler
from tests.support.lambda_support import LambdaContext, load_event, load_function

TEMPLATE = load_template()
SCHEDULED = {i: f for i, f in TEMPLATE.functions().items() if f.schedules}
# What the scheduler puts in place of each context attribute (one invocation's values).
ATTRIBUTES = {
    "<aws.scheduler.schedule-arn>": "arn:aws:scheduler:eu-west-1:123456789012:schedule/default/",
    "<aws.scheduler.scheduled-time>": "2026-11-30T03:00:00Z",
    "<aws.scheduler.execution-id>": "d32c5kddcf5bb8c3",
    "<aws.scheduler.attempt-number>": "1",
}
EVENTS = {  # function folder -> its sample event
    "summarize_schedule": "summarize_schedule_daily",
    "cleanup_schedule": "cleanup_schedule_hourly",
    "reindex_schedule": "reindex_schedule_tick",
}


def delivered(schedule_input: str) -> dict:
    """The event a Lambda target receives: the Input, context attributes substituted."""
    for keyword, value in ATTRIBUTES.items():
        schedule_input = schedule_input.replace(keyword, value)
    return json.loads(schedule_input)


def test_every_schedule_function_has_a_sample_event():
    assert {f.code_uri.name for f in SCHEDULED.values()} == set(EVENTS)


@pytest.mark.parametrize("logical_id", sorted(SCHEDULED))
def test_schedules_deploy_twice_send_an_input_and_keep_their_failures(logical_id):
    function = SCHEDULED[logical_id]
    dead_letters = {"Fn::GetAtt": ["ScheduleDeadLetterQueue", "Arn"]}
    for name, schedule in function.schedules.items():
        # A name of its own would collide with a second stack in the same account/region.
        assert schedule.get("OmitName") is True and "Name" not in schedule, name
        payload = delivered(schedule["Input"])
        event = load_event(EVENTS[function.code_uri.name])
        assert payload.keys() == event.keys()
        assert payload["job"] == event["job"]
        assert payload["scheduleArn"] and event["scheduleArn"].startswith(payload["scheduleArn"])
        assert schedule["DeadLetterConfig"] == {"Arn": dead_letters}
        assert schedule["RetryPolicy"]["MaximumRetryAttempts"] >= 1
    # A job that ran and failed is not run again by Lambda's async retries; its record
    # lands where the scheduler's undeliverable invocations go.
    invoke_config = function.properties["EventInvokeConfig"]
    assert invoke_config["MaximumRetryAttempts"] == 0
    assert invoke_config["DestinationConfig"]["OnFailure"] == {
        "Type": "SQS",
        "Destination": dead_letters,
    }


class Done(BaseModel):
    runs: int


def counting_handler(name: str = "Cleanup"):
    runs = []

    def job() -> Done:
        runs.append(1)
        return Done(runs=len(runs))

    return scheduled_handler(name, job), runs


@pytest.mark.parametrize("event_name", sorted(EVENTS.values()))
def test_the_scheduler_payload_runs_the_job_once(event_name, monkeypatch, capfd):
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    event = load_event(event_name)
    handler, runs = counting_handler(event["job"])
    assert handler(event, LambdaContext()) == {"job": event["job"], "skipped": False, "runs": 1}
    assert runs == [1]
    logged = [json.loads(line) for line in capfd.readouterr().out.splitlines() if "{" in line]
    done = next(r for r in logged if r.get("message") == "scheduled job done")
    assert done["schedule"] == event["scheduleArn"] and done["attempt"] == 1


def test_an_empty_event_runs_the_job_and_returns_without_raising(monkeypatch):
    """A schedule without Input (or a manual invoke) sends {}: no KeyError after the job,
    which Lambda's async retries would have turned into three runs."""
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    handler, runs = counting_handler()
    assert handler({}, LambdaContext())["runs"] == 1
    assert runs == [1]


@pytest.mark.parametrize(
    "event",
    [
        {"job": "Reindex"},  # another function's schedule
        {"job": "Cleanup", "attemptNumber": "first"},
        ["not", "an", "object"],
    ],
)
def test_a_wrong_event_is_refused_before_the_job_runs(event, monkeypatch):
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    handler, runs = counting_handler("Cleanup")
    with pytest.raises(InvalidSchedule):
        handler(event, LambdaContext())
    assert runs == []


@pytest.fixture
def scheduled(monkeypatch, db_url):
    monkeypatch.setenv("ENGRAM_DB_URL", db_url)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "EngramTest")
    reset_engines()
    engine = open_engine(Config(db_url=db_url), jobs="manual")
    yield engine
    engine.close()
    reset_engines()


def test_the_functions_run_their_jobs_with_the_scheduler_payload(scheduled):
    scheduled.memories.create(MemoryCreate(api_key_id="k1", content="needs a vector"))
    reindex = load_function("reindex_schedule").handler(
        delivered(SCHEDULED["ReindexScheduleFunction"].schedules["Tick"]["Input"]),
        LambdaContext(),
    )
    assert (reindex["job"], reindex["processed"], reindex["pending"]) == ("Reindex", 1, 0)
    cleanup = load_function("cleanup_schedule").handler({}, LambdaContext())
    assert cleanup["job"] == "Cleanup"
