"""Operations in template.yaml: logs with retention, alarms, throttling, access logs,
worker concurrency, how fast a poison message reaches its dead-letter queue, stages."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from shared.devtools.template import ROOT, load_template

TEMPLATE = load_template()
RESOURCES = TEMPLATE.resources
FUNCTIONS = TEMPLATE.functions()
ALARM_ACTIONS = {"Fn::If": ["WithAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}


def of_type(kind: str) -> dict:
    return {i: r for i, r in RESOURCES.items() if r["Type"] == kind}


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_each_function_logs_json_into_a_log_group_with_retention(logical_id):
    assert TEMPLATE.raw["Globals"]["Function"]["LoggingConfig"]["LogFormat"] == "JSON"
    group = FUNCTIONS[logical_id].properties["LoggingConfig"]["LogGroup"]["Ref"]
    resource = RESOURCES[group]
    assert resource["Type"] == "AWS::Logs::LogGroup"
    assert resource["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert resource.get("Condition") == RESOURCES[logical_id].get("Condition")


def test_log_groups_all_expire():
    for logical_id, group in of_type("AWS::Logs::LogGroup").items():
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}, logical_id
    assert TEMPLATE.raw["Parameters"]["LogRetentionDays"]["Default"] == 30


@pytest.mark.parametrize("logical_id", sorted(i for i, f in FUNCTIONS.items() if f.queues))
def test_workers_are_capped_and_poison_messages_leave_within_minutes(logical_id):
    function = FUNCTIONS[logical_id]
    for name, polling in function.polling.items():
        # libSQL's single write lock: two writers at most (the least SQS allows).
        assert polling["ScalingConfig"]["MaximumConcurrency"] == 2
        assert polling["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
        queue = RESOURCES[name]["Properties"]
        visibility = queue["VisibilityTimeout"]
        receives = queue["RedrivePolicy"]["maxReceiveCount"]
        assert visibility >= 6 * function.timeout  # a running batch never shows twice
        assert receives * visibility <= 10 * 60  # a poison message is dead-lettered in minutes
        assert receives >= 2  # and a transient failure is retried


def test_workers_poll_only_their_own_queue():
    """No SAM SQS event (it would attach AWSLambdaSQSQueueExecutionRole: receive and delete
    on every queue of the account); each worker's poller policy names its own queue."""
    assert any(f.queues for f in FUNCTIONS.values())
    for logical_id, function in FUNCTIONS.items():
        events = function.properties.get("Events", {}).values()
        assert all(event["Type"] != "SQS" for event in events), logical_id
        polled = [
            policy["SQSPollerPolicy"]["QueueName"]["Fn::GetAtt"][0]
            for policy in function.properties.get("Policies", [])
            if isinstance(policy, dict) and "SQSPollerPolicy" in policy
        ]
        assert polled == function.queues, logical_id


def alarms() -> dict:
    return of_type("AWS::CloudWatch::Alarm")


def _metrics(props: dict) -> list[dict]:
    """The metrics an alarm reads: its own, or those of its metric math."""
    if "MetricName" in props:
        return [props]
    return [m["MetricStat"]["Metric"] for m in props.get("Metrics", []) if "MetricStat" in m]


def watched(namespace: str, metric: str) -> dict:
    """The alarms on ``metric`` (alone or in metric math), by the logical id their
    dimension refers to."""
    found = {}
    for logical_id, alarm in alarms().items():
        for read in _metrics(alarm["Properties"]):
            if (read["Namespace"], read["MetricName"]) != (namespace, metric):
                continue
            value = read["Dimensions"][0]["Value"]
            target = value.get("Ref") or value.get("Fn::GetAtt", [None])[0]
            found[target] = alarm | {"id": logical_id}
    return found


def test_every_alarm_notifies_the_optional_topic():
    assert alarms()
    for logical_id, alarm in alarms().items():
        assert alarm["Properties"]["AlarmActions"] == ALARM_ACTIONS, logical_id
        assert alarm["Properties"]["TreatMissingData"] == "notBreaching", logical_id


@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_each_function_has_error_and_throttle_alarms(metric):
    found = watched("AWS/Lambda", metric)
    assert set(found) == set(FUNCTIONS)
    for logical_id, alarm in found.items():
        assert alarm.get("Condition") == RESOURCES[logical_id].get("Condition"), logical_id


SCHEDULED = {i for i, f in FUNCTIONS.items() if f.schedules}


def test_errors_alarm_on_a_rate_except_for_scheduled_jobs():
    """One failed chat among thousands is not a page; a daily job that failed is."""
    for logical_id, alarm in watched("AWS/Lambda", "Errors").items():
        props = alarm["Properties"]
        if logical_id in SCHEDULED:
            assert props["Threshold"] == 0 and props["Statistic"] == "Sum", logical_id
            continue
        (rate,) = [m for m in props["Metrics"] if m.get("ReturnData")]
        assert rate["Expression"] == "IF(errors >= 3, 100 * errors / invocations, 0)"
        assert {m["Id"] for m in props["Metrics"]} == {"errors", "invocations", "rate"}
        assert props["DatapointsToAlarm"] < props["EvaluationPeriods"], logical_id


def test_durations_near_the_timeout_are_watched_on_every_function_that_serves_or_polls():
    found = watched("AWS/Lambda", "Duration")
    assert set(found) == set(FUNCTIONS) - SCHEDULED
    for logical_id, alarm in found.items():
        props = alarm["Properties"]
        assert props["ExtendedStatistic"] == "p99"
        assert props["Threshold"] == FUNCTIONS[logical_id].timeout * 1000 * 0.8, logical_id
        assert alarm.get("Condition") == RESOURCES[logical_id].get("Condition"), logical_id


def test_reserved_concurrency_in_use_is_watched_where_it_is_reserved():
    reserved = {
        logical_id: f.properties["ReservedConcurrentExecutions"]["Fn::If"]
        for logical_id, f in FUNCTIONS.items()
        if "ReservedConcurrentExecutions" in f.properties
    }
    assert set(reserved) == set(FUNCTIONS) - SCHEDULED - {
        "ExtractionWorkerFunction",
        "EmbeddingWorkerFunction",
    }
    found = watched("AWS/Lambda", "ConcurrentExecutions")
    assert set(found) == set(reserved)
    for logical_id, (condition, amount, _) in reserved.items():
        alarm = found[logical_id]
        (share,) = [m for m in alarm["Properties"]["Metrics"] if m.get("ReturnData")]
        assert share["Expression"] == {"Fn::Sub": f"100 * running / ${{{amount['Ref']}}}"}
        # Only where the reservation exists (and the function does).
        expected = RESOURCES[logical_id].get("Condition")
        assert alarm["Condition"] in (condition, f"{condition}Alarm"), logical_id
        if expected:
            conditions = TEMPLATE.raw["Conditions"][alarm["Condition"]]["Fn::And"]
            assert {"Fn::Condition": expected} in conditions
            assert {"Fn::Condition": condition} in conditions


def test_the_streamed_chat_url_answering_5xx_is_watched():
    (alarm,) = watched("AWS/Lambda", "Url5xxCount").values()
    assert alarm["Properties"]["Dimensions"] == [
        {"Name": "FunctionName", "Value": {"Ref": "ChatStreamFunction"}}
    ]


def test_dead_letter_queues_and_queue_age_are_watched():
    queues = of_type("AWS::SQS::Queue")
    dead_letters = {i for i in queues if i.endswith("DeadLetterQueue")}
    assert dead_letters == {
        "ExtractionDeadLetterQueue",
        "EmbeddingDeadLetterQueue",
        "ScheduleDeadLetterQueue",
    }
    assert set(watched("AWS/SQS", "ApproximateNumberOfMessagesVisible")) == dead_letters
    assert set(watched("AWS/SQS", "ApproximateAgeOfOldestMessage")) == set(queues) - dead_letters


def test_api_5xx_throttling_and_access_logs():
    assert set(watched("AWS/ApiGateway", "5xx")) == {"HttpApi"}
    api = RESOURCES["HttpApi"]["Properties"]
    assert api["DefaultRouteSettings"] == {
        "ThrottlingRateLimit": {"Ref": "ApiThrottlingRateLimit"},
        "ThrottlingBurstLimit": {"Ref": "ApiThrottlingBurstLimit"},
    }
    access = api["AccessLogSettings"]
    assert RESOURCES[access["DestinationArn"]["Fn::GetAtt"][0]]["Type"] == "AWS::Logs::LogGroup"
    fields = json.loads(access["Format"])
    assert {"requestId", "status", "routeKey", "integrationError"} <= set(fields)
    assert not [v for v in fields.values() if "header" in v.lower() or "authorizer" in v.lower()]


def test_chat_proxy_ends_before_api_gateway_does():
    """HTTP API integrations end at 30 s: the function (and its upstream call) must too."""
    chat = FUNCTIONS["ChatProxyFunction"]
    assert chat.timeout <= 30
    assert float(chat.environment["ENGRAM_UPSTREAM_TIMEOUT_S"]) < chat.timeout


def _names(value, path=""):
    """Every property called ...Name in the template, with where it is (a ``Ref`` names
    another resource, whose own name is checked where it is defined)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            refers = isinstance(inner, dict) and set(inner) == {"Ref"}
            if (
                key.endswith("Name")
                and not refers
                and key
                not in (
                    "MetricName",
                    "Name",
                    "QueueName",
                    "OmitName",
                )
            ):
                yield f"{path}.{key}", inner
            yield from _names(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _names(inner, f"{path}[{index}]")


def test_names_unique_in_an_account_carry_the_stage():
    named = dict(_names(RESOURCES))
    assert named  # layers and log groups
    for where, value in named.items():
        assert isinstance(value, dict) and "${Stage}" in value.get("Fn::Sub", ""), where


def test_samconfig_environments_deploy_their_own_stage():
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    pattern = TEMPLATE.raw["Parameters"]["Stage"]["AllowedPattern"]
    stacks = set()
    for environment in ("dev", "prod"):
        overrides = dict(
            item.split("=", 1)
            for item in config[environment]["deploy"]["parameters"]["parameter_overrides"].split()
        )
        assert overrides["Stage"] == environment and re.match(pattern, environment)
        assert set(overrides) <= set(TEMPLATE.raw["Parameters"])
        stacks.add(config[environment]["global"]["parameters"]["stack_name"])
        assert "CAPABILITY_IAM" in config[environment]["deploy"]["parameters"]["capabilities"]
    assert len(stacks) == 2


def test_checkov_passes_and_every_skip_says_why():
    """`make lint` runs checkov; a template it cannot parse would pass it silently."""
    import subprocess
    import sys
    from pathlib import Path

    skips = [
        skip
        for resource in RESOURCES.values()
        for skip in resource.get("Metadata", {}).get("checkov", {}).get("skip", [])
    ]
    assert skips and all(len(skip["comment"]) > 40 for skip in skips)
    checkov = Path(sys.executable).parent / "checkov"
    out = subprocess.run(
        [
            str(checkov),
            *("--file", "template.yaml", "--framework", "cloudformation"),
            *("--compact", "--skip-download", "--output", "json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    summary = json.loads(out.stdout)["summary"]
    assert summary["parsing_errors"] == 0 and summary["passed"] > 0
    assert summary["failed"] == 0, out.stdout[:3000]
    assert summary["skipped"] == len(skips)


def test_degraded_retrievals_are_counted_from_every_retrieving_function_and_alarmed():
    """The engine logs "retrieval degraded" (engram/app/retrieval.py); each function that
    retrieves turns those lines into the metric, the streaming chat included."""
    import inspect

    from engram.app import retrieval

    assert 'log.warning("retrieval degraded"' in inspect.getsource(retrieval)
    filters = of_type("AWS::Logs::MetricFilter")
    counted = {}
    for logical_id, resource in filters.items():
        props = resource["Properties"]
        (transform,) = props["MetricTransformations"]
        if (transform["MetricNamespace"], transform["MetricName"]) != (
            "Engram",
            "DegradedRetrievals",
        ):
            continue
        assert props["FilterPattern"] == '"retrieval degraded"', logical_id
        group = props["LogGroupName"]["Ref"]
        function = RESOURCES[group]["Properties"]["LogGroupName"]
        counted[group] = resource.get("Condition")
        assert function
    assert set(counted) == {
        "ChatProxyLogGroup",
        "ChatStreamLogGroup",
        "MemoryApiLogGroup",
        "RetrievePreviewLogGroup",
        "McpLogGroup",
    }
    assert counted["McpLogGroup"] == RESOURCES["McpLogGroup"].get("Condition")
    (alarm,) = [
        a["Properties"]
        for a in alarms().values()
        if a["Properties"].get("MetricName") == "DegradedRetrievals"
    ]
    assert alarm["Namespace"] == "Engram" and alarm["Statistic"] == "Sum"


def test_the_chat_paths_may_keep_instances_initialized_behind_an_alias():
    """Provisioned concurrency is the cold-start cut on the chat paths: off by default (it
    is billed whether used or not), on the `live` alias that API Gateway and the URL call."""
    defaults = TEMPLATE.parameter_defaults()
    for logical_id, parameter in (
        ("ChatProxyFunction", "ChatProxyProvisioned"),
        ("ChatStreamFunction", "ChatStreamProvisioned"),
    ):
        props = FUNCTIONS[logical_id].properties
        assert props["AutoPublishAlias"] == "live"
        condition, config, absent = props["ProvisionedConcurrencyConfig"]["Fn::If"]
        assert config == {"ProvisionedConcurrentExecutions": {"Ref": parameter}}
        assert absent == {"Ref": "AWS::NoValue"} and defaults[parameter] == "0"
        assert TEMPLATE.raw["Conditions"][condition] == {
            "Fn::Not": [{"Fn::Equals": [{"Ref": parameter}, 0]}]
        }
    policy = RESOURCES["ChatStreamInvokePolicy"]["Properties"]["PolicyDocument"]
    (statement,) = policy["Statement"]
    assert {"Fn::Sub": "${ChatStreamFunction.Arn}:live"} in statement["Resource"]
