"""Reading ``template.yaml``: functions, their routes, layers and environment.

Used by ``engram invoke`` (running a function locally as Lambda would), by
``engram build-layer`` and by the tests that keep the template and the code in step.
CloudFormation's short tags (``!Ref``, ``!Sub``...) are read as ``{"Ref": ...}``-style
dictionaries, the long form CloudFormation itself uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["Function", "Template", "load_template"]

ROOT = Path(__file__).resolve().parents[2]


class _Loader(yaml.SafeLoader):
    pass


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    elif isinstance(node, yaml.MappingNode):
        value = loader.construct_mapping(node, deep=True)
    else:
        raise yaml.constructor.ConstructorError(
            None, None, f"unexpected !{suffix}", node.start_mark
        )
    return {name: value}


_Loader.add_multi_constructor("!", _tag)


@dataclass
class Function:
    logical_id: str
    code_uri: Path
    handler: str
    timeout: int
    routes: set[tuple[str, str]] = field(default_factory=set)  # (METHOD, /path)
    layers: list[str] = field(default_factory=list)  # logical ids
    environment: dict[str, Any] = field(default_factory=dict)
    queues: list[str] = field(default_factory=list)  # logical ids of SQS event sources
    # queue logical id -> its event source mapping's properties (batch size, scaling...)
    polling: dict[str, dict[str, Any]] = field(default_factory=dict)
    schedules: dict[str, dict[str, Any]] = field(default_factory=dict)  # ScheduleV2 properties
    properties: dict[str, Any] = field(default_factory=dict)  # the function's own, as written


@dataclass
class Template:
    raw: dict[str, Any]
    root: Path

    @property
    def resources(self) -> dict[str, Any]:
        return dict(self.raw.get("Resources", {}))

    def parameter_defaults(self) -> dict[str, str]:
        return {
            name: str(spec["Default"])
            for name, spec in self.raw.get("Parameters", {}).items()
            if "Default" in spec
        }

    def layer_dir(self, logical_id: str) -> Path:
        return self.root / str(self.resources[logical_id]["Properties"]["ContentUri"])

    def functions(self) -> dict[str, Function]:
        globals_ = self.raw.get("Globals", {}).get("Function", {})
        found = {}
        for logical_id, resource in self.resources.items():
            if resource.get("Type") != "AWS::Serverless::Function":
                continue
            props = resource["Properties"]
            environment = {
                **globals_.get("Environment", {}).get("Variables", {}),
                **props.get("Environment", {}).get("Variables", {}),
            }
            # SAM appends a function's own layers to the Globals' ones. Conditional layers
            # (!If) are optional extras and left out here.
            layers = [
                entry["Ref"]
                for entry in [*globals_.get("Layers", []), *props.get("Layers", [])]
                if "Ref" in entry
            ]
            function = Function(
                logical_id=logical_id,
                code_uri=self.root / props["CodeUri"],
                handler=props["Handler"],
                timeout=int(props.get("Timeout", globals_.get("Timeout", 3))),
                layers=layers,
                environment=environment,
                properties=props,
            )
            for name, event in props.get("Events", {}).items():
                if event["Type"] == "HttpApi":
                    function.routes.add(
                        (event["Properties"]["Method"], event["Properties"]["Path"])
                    )
                elif event["Type"] == "ScheduleV2":
                    function.schedules[name] = event["Properties"]
            found[logical_id] = function
        # SQS sources are event source mappings of their own (each worker's policy then
        # names its queue): SAM's SQS event would grant receive on every queue.
        for resource in self.resources.values():
            if resource.get("Type") != "AWS::Lambda::EventSourceMapping":
                continue
            props = resource["Properties"]
            queue = props["EventSourceArn"]["Fn::GetAtt"][0]
            function = found[props["FunctionName"]["Ref"]]
            function.queues.append(queue)
            function.polling[queue] = props
        return found


def load_template(path: Path | None = None) -> Template:
    path = path or ROOT / "template.yaml"
    raw = yaml.load(path.read_text(), Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    return Template(raw=raw, root=path.parent)
