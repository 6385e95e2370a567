"""Rendering the Helm chart (deploy/helm/boxedin) for the deploy tests: Helm's own engine
(helm-python-sdk: Helm 4 as a library, no helm binary, no cluster), the values the tests render
it with, and small readers of the rendered objects."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import helm_python as helm
import yaml
from kubernetes_validate import utils as kv_utils

from boxedin.common import service_auth

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "boxedin"
FILES = CHART / "files"
DOCKERFILE = ROOT / "Dockerfile"
ENTRYPOINT = ROOT / "deploy" / "entrypoint.sh"
RELEASE = "play"
NAMESPACE = "games"
FULLNAME = f"{RELEASE}-boxedin"

KINDS = ("gateway", "engine", "ai", "stats", "worker", "matchmaker")
GRPC_KINDS = ("engine", "ai", "stats", "matchmaker")
# The kinds that may call each gRPC kind, as the services themselves hold their callers to
# (gateway -> engine, stats and matchmaker; AI and matchmaker -> engine; nothing calls the AI):
# the NetworkPolicies must let in exactly these.
CALLERS: dict[str, set[str]] = {kind: set(service_auth.CALLERS[kind]) for kind in GRPC_KINDS}
# The kinds that serve or make gRPC calls: each needs the services' shared secret.
SECRET_KINDS = frozenset(service_auth.SERVICES)
SERVICE_SECRET = f"{FULLNAME}-service-secret"
# Custom resources: no schema in kubernetes-validate; checked by check_custom_resource.
CUSTOM_RESOURCES = {
    ("keda.sh/v1alpha1", "ScaledObject"),
    ("keda.sh/v1alpha1", "TriggerAuthentication"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
}
WORKLOADS = ("Deployment", "StatefulSet")


def oldest_kubernetes() -> str:
    """The oldest Kubernetes the chart supports (Chart.yaml's kubeVersion: >=MAJOR.MINOR...)."""
    declared = yaml.safe_load((CHART / "Chart.yaml").read_text())["kubeVersion"]
    found = re.match(r">=\s*v?(\d+\.\d+)", declared)
    assert found, declared
    return found.group(1)


KUBERNETES_VERSIONS = (oldest_kubernetes(), kv_utils.latest_version())

# kubernetes-validate reads and parses its schema files (a 1 MB _definitions.json among them) on
# every validate(); the deploy tests validate some 200 objects, so each file is parsed once. The
# files are the package's own and never change, and validating never changes a schema.
kv_utils.schema_contents = cache(kv_utils.schema_contents)

# A Redis Cluster installation with everything optional switched on: KEDA, the matchmaker, a
# ServiceMonitor, the gateway on a LoadBalancer, Secrets made from values.
CLUSTER_VALUES: dict[str, Any] = {
    "redis": {"mode": "cluster", "url": "redis://redis-cluster-0.redis-cluster:6379/0"},
    "keda": {"enabled": True},
    "opsToken": {"value": "a-token-for-tests"},
    "services": {
        "matchmaker": {"enabled": True},
        "gateway": {"service": {"type": "LoadBalancer", "loadBalancerSourceRanges": ["203.0.113.0/24"]}},
    },
    "monitoring": {"serviceMonitor": {"enabled": True}},
    "ingress": {"enabled": True},
}


def production_values() -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load((CHART / "values-production.yaml").read_text())
    return values


# --- rendering ---------------------------------------------------------------------------------


@dataclass
class Rendered:
    """One rendering of the chart: its objects and its NOTES.txt."""

    values: dict[str, Any]
    objects: list[dict[str, Any]]
    notes: str

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [obj for obj in self.objects if obj["kind"] == kind]

    def get(self, kind: str, name: str) -> dict[str, Any]:
        found = [obj for obj in self.of(kind) if obj["metadata"]["name"] == name]
        assert len(found) == 1, f"{kind} {name}: {len(found)} rendered"
        return found[0]

    def has(self, kind: str, name: str) -> bool:
        return any(obj["metadata"]["name"] == name for obj in self.of(kind))

    def settings(self) -> dict[str, str]:
        data: dict[str, str] = self.get("ConfigMap", f"{FULLNAME}-settings")["data"]
        return data

    def deployments(self) -> dict[str, dict[str, Any]]:
        """The Deployments by process kind."""
        return {component(obj): obj for obj in self.of("Deployment")}


# libyaml's parser where PyYAML has it: the same safe loading (PyYAML's own constructor and
# resolver build the objects), parsed in C, for the rendered manifests are large (the dashboards).
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_manifests(text: str) -> list[Any]:
    """The documents of a rendered manifest file, as yaml.safe_load_all reads them."""
    return list(yaml.load_all(text, Loader=LOADER))


def render(chart: helm.Chart, values: dict[str, Any]) -> Rendered:
    manifests = chart.render(values=values, name=RELEASE, namespace=NAMESPACE)
    objects = [
        obj
        for path, text in sorted(manifests.items())
        if path.endswith((".yaml", ".yml"))
        for obj in load_manifests(text)
        if obj
    ]
    notes = next((text for path, text in manifests.items() if path.endswith("NOTES.txt")), "")
    return Rendered(values, objects, notes)


# --- small readers -----------------------------------------------------------------------------


def component(obj: dict[str, Any]) -> str:
    label: str = obj["metadata"]["labels"]["app.kubernetes.io/component"]
    return label


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = workload["spec"]["template"]["spec"]
    return spec


def pod_labels(workload: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = workload["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, str] | None, labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in (selector or {}).items())


def container(workload: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    """A workload's container by name; without a name its main one: a Deployment's only one, or
    the first of the chart's Redis (redis_exporter is beside it)."""
    containers = pod_spec(workload)["containers"]
    if name is not None:
        (named,) = [each for each in containers if each["name"] == name]
        return dict(named)
    if workload["kind"] == "Deployment":
        (only,) = containers
        return dict(only)
    return dict(containers[0])


def env_of(workload: dict[str, Any]) -> dict[str, Any]:
    """A container's environment: literal values as strings, the rest as their valueFrom."""
    return {item["name"]: item.get("value", item.get("valueFrom")) for item in container(workload).get("env", [])}


def port_named(workload: dict[str, Any], name: str) -> int:
    ports = {port["name"]: port["containerPort"] for port in container(workload)["ports"]}
    return int(ports[name])


def secret_value(secret: dict[str, Any], key: str = "service-secret") -> str:
    """A key of a rendered Secret, decoded."""
    return base64.b64decode(secret["data"][key]).decode()
