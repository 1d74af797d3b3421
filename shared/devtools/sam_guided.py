"""What ``sam deploy --guided`` would ask of this template, asked by the SAM CLI's own
code, and the template as CloudFormation receives it (SAM's transform).

Run by ``.venv-sam``'s Python (``make sam-build``: ``shared/devtools/sam_check.py``), where
the SAM CLI is installed; it imports nothing of Engram's. Guided deploy asks, for every
function route and Function URL without authentication, "has no authentication. Is
this okay? [y/N]", and the default answer aborts the deploy: here every such question
must already be answered by the template (an authorizer, IAM auth, or an explicit
``Authorizer: NONE``), and no function or layer may ask for code signing settings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# Values for the parameters without a default, shaped as their AllowedPattern wants: the
# checks below read the template's structure, never these values.
_EXAMPLE_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:engram/dev/x-AbCdEf"
EXAMPLES = {
    "DbUrl": "libsql://engram-example.turso.io",
    "DbAuthTokenSecret": _EXAMPLE_ARN,
    "SecretsKeySecret": _EXAMPLE_ARN,
    "AdminTokenSecret": _EXAMPLE_ARN,
    "UpstreamBaseUrl": "https://api.openai.com/v1",
    "UpstreamApiKeySecret": _EXAMPLE_ARN,
}


def guided_questions(template: Path) -> list[str]:
    """The questions guided deploy would ask that the template leaves unanswered."""
    from samcli.commands.deploy.auth_utils import auth_per_resource
    from samcli.commands.deploy.code_signer_utils import signer_config_per_function
    from samcli.lib.providers.sam_stack_provider import SamLocalStackProvider

    stacks, _ = SamLocalStackProvider.get_stacks(
        str(template),
        parameter_overrides=EXAMPLES,
        global_parameter_overrides={"AWS::Region": "eu-west-1"},
    )
    questions = [
        f"{resource} has no authentication. Is this okay? [y/N]"
        for resource, authenticated in auth_per_resource(stacks)
        if not authenticated
    ]
    functions, layers = signer_config_per_function(stacks)
    questions += [f"code signing for {name}" for name in sorted({*functions, *layers})]
    return questions


def transformed(template: Path) -> dict[str, Any]:
    """The template after SAM's transform: what CloudFormation deploys."""
    from samtranslator.translator.transform import transform
    from samtranslator.yaml_helper import yaml_parse

    class _NoIam:  # SAM's loader of managed policies by name needs IAM: none are used here
        def load(self) -> dict[str, str]:
            return {}

    document = yaml_parse(template.read_text())
    # As `sam package` leaves it: code and layer contents in S3 (what is uploaded does not
    # change what is deployed around it).
    for logical_id, resource in document["Resources"].items():
        properties = resource.get("Properties", {})
        for uri in ("CodeUri", "ContentUri"):
            if uri in properties:
                properties[uri] = f"s3://engram-artifacts/{logical_id}.zip"
    result: dict[str, Any] = transform(document, EXAMPLES, _NoIam())
    return result


def broad_grants(document: dict[str, Any]) -> list[str]:
    """Roles that SAM gave an AWS managed policy reaching every resource of a kind (its
    SQS event source adds receive and delete on every queue of the account)."""
    return [
        f"{logical_id}: {arn}"
        for logical_id, resource in document["Resources"].items()
        if resource["Type"] == "AWS::IAM::Role"
        for arn in resource["Properties"].get("ManagedPolicyArns", [])
        if isinstance(arn, str) and "SQSQueueExecutionRole" in arn
    ]


def main(argv: list[str]) -> int:
    template, out = Path(argv[0]), Path(argv[1])
    problems = [f"unanswered: {q}" for q in guided_questions(template)]
    document = transformed(template)
    problems += [f"too broad: {grant}" for grant in broad_grants(document)]
    out.write_text(json.dumps(document, indent=1, default=str))
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"guided deploy and transformed template: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
