"""The Helm chart (deploy/helm/boxedin) and the image (Dockerfile, deploy/entrypoint.sh), offline.

The chart is rendered with Helm's own engine (helm-python-sdk: Helm 4 as a library, no helm
binary, no cluster) with its default values, with values-production.yaml and with a Redis Cluster
installation; `helm lint` finds nothing; every rendered object validates against the Kubernetes
API schemas (kubernetes-validate, strict: an unknown field fails) of the oldest Kubernetes the
chart supports and of the newest the package knows, except the custom resources (KEDA, the
Prometheus Operator), whose required fields are checked here; values.schema.json refuses wrong
values with a message that names them. Then the rendered objects themselves: non-root,
read-only containers with resources and probes, a Service and a PodDisruptionBudget for every
Deployment, nothing but the gateway reachable from outside, NetworkPolicies, every setting
reachable through values. The Dockerfile cannot be built here (no Docker engine): its stages
and user are read, and its entrypoint is run with stand-ins for python and celery.
"""

from __future__ import annotations

import copy
import hashlib
import re
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest

from boxedin.common import service_auth
from boxedin.common.engine_router import EngineAddress
from boxedin.common.keys import celery_queue
from boxedin.common.progress import LIVENESS

from chart_render import (
    CALLERS,
    CHART,
    CLUSTER_VALUES,
    CUSTOM_RESOURCES,
    FULLNAME,
    GRPC_KINDS,
    KINDS,
    KUBERNETES_VERSIONS,
    NAMESPACE,
    RELEASE,
    SECRET_KINDS,
    SERVICE_SECRET,
    Rendered,
    component,
    container,
    env_of,
    load_manifests,
    pod_labels,
    pod_spec,
    port_named,
    production_values,
    render,
    secret_value,
    selects,
)

# --- Helm itself -------------------------------------------------------------------------------


@pytest.mark.parametrize("values_name", ["default", "production"])
def test_lint_finds_nothing(values_name: str) -> None:
    values = production_values() if values_name == "production" else None
    report = helm.lint(CHART, values, strict=True, kube_version=f"v{KUBERNETES_VERSIONS[-1]}")
    assert report["errors"] == []
    # Severity 1 is information ("icon is recommended"); 2 warnings, 3 errors.
    assert [m for m in report["messages"] if m["severity"] >= 2] == []


def test_chart_loads_with_its_schema(chart: helm.Chart) -> None:
    assert chart.name == "boxedin"
    assert chart.schema is not None
    chart.validate_schema({})
    chart.validate_schema(production_values())
    chart.validate_schema(CLUSTER_VALUES)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"services": {"engine": {"replicas": -1}}}, "at '/services/engine/replicas': minimum: got -1, want 0"),
        ({"services": {"gatewy": {"enabled": True}}}, "at '/services': additional properties 'gatewy' not allowed"),
        ({"services": {"engine": {"port": 70000}}}, "at '/services/engine/port': maximum"),
        ({"services": {"worker": {"metricsPort": 0}}}, "at '/services/worker/metricsPort': minimum"),
        ({"services": {"gateway": {"metricsPort": 0}}}, "at '/services/gateway/metricsPort': minimum"),
        ({"serviceSecret": {"secret": "x" * 20}}, "at '/serviceSecret': additional properties 'secret' not allowed"),
        (
            {"services": {"engine": {"service": {"type": "LoadBalancer"}}}},
            "at '/services/engine': additional properties 'service' not allowed",
        ),
        (
            {"services": {"gateway": {"service": {"type": "ExternalName"}}}},
            "at '/services/gateway/service/type': value must be one of",
        ),
        ({"services": {"engine": {"allowFrom": ["browser"]}}}, "at '/services/engine/allowFrom/0'"),
        ({"services": {"engine": {"autoscaling": {"minReplicas": 0}}}}, "autoscaling/minReplicas': minimum"),
        ({"settings": {"logLevl": "DEBUG"}}, "at '/settings': additional properties 'logLevl' not allowed"),
        ({"settings": {"workPartitions": 0}}, "at '/settings/workPartitions': minimum"),
        ({"redis": {"mode": "sentinel"}}, "at '/redis/mode': value must be one of 'internal', 'external', 'cluster'"),
        ({"redis": {"url": "http://redis:6379"}}, "at '/redis/url'"),
        ({"redis": {"auth": {"password": "p@ss:word/with-symbols"}}}, "at '/redis/auth/password'"),
        ({"redis": {"internal": {"maxmemoryPercent": 100}}}, "at '/redis/internal/maxmemoryPercent': maximum"),
        ({"services": {"engine": {"resources": {"requests": {"cpu": "lots"}}}}}, "requests/cpu'"),
        ({"replicaCount": 3}, "additional properties 'replicaCount' not allowed"),
        ({"tests": {"timeoutSeconds": 0}}, "at '/tests/timeoutSeconds': minimum"),
        ({"tests": {"enable": False}}, "at '/tests': additional properties 'enable' not allowed"),
        # It ends up inside a quoted YAML string, before "#ANCHOR".
        ({"monitoring": {"runbookBaseUrl": 'https://x/"a'}}, "at '/monitoring/runbookBaseUrl'"),
        ({"monitoring": {"runbookBaseUrl": "https://x/runbooks.md#top"}}, "at '/monitoring/runbookBaseUrl'"),
    ],
)
def test_schema_refuses_wrong_values(chart: helm.Chart, values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmValuesError) as refused:
        chart.validate_schema(values)
    assert message in str(refused.value)
    # Installing (rendering) refuses them the same way.
    with pytest.raises(helm.HelmValuesError) as refused:
        chart.render(values=values, name=RELEASE)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"production": True}, "production: true needs an ops token"),
        ({"redis": {"mode": "external"}}, "redis.mode external needs the Redis URL"),
        (
            {"redis": {"mode": "external", "existingSecret": "r"}, "keda": {"enabled": True}},
            "keda.enabled with redis.mode external needs keda.redisAddress",
        ),
        (
            {"services": {"gateway": {"terminationGracePeriodSeconds": 30, "shutdownGraceSeconds": 45}}},
            "services.gateway.terminationGracePeriodSeconds (30) must exceed",
        ),
        (
            {"services": {"engine": {"autoscaling": {"minReplicas": 5, "maxReplicas": 2}}}},
            "services.engine.autoscaling.minReplicas (5) is more than maxReplicas (2)",
        ),
        (
            {"services": {"gateway": {"metricsPort": 8000}}},
            "services.gateway.metricsPort (8000) must differ from its port",
        ),
        ({"serviceSecret": {"value": "fifteen-letters"}}, "serviceSecret.value must be 16 characters or more"),
        (
            {"redis": {"auth": {"existingSecret": "r", "password": "a-redis-password-for-tests"}}},
            "redis.auth: give existingSecret or password, not both",
        ),
        (
            {"redis": {"broker": {"enabled": True, "existingSecret": "b"}}},
            "redis.broker: give enabled (the chart runs Celery's broker) or existingSecret (yours), not both",
        ),
        (
            {
                "redis": {
                    "internal": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "1Ei"}}}
                }
            },
            "redis.internal.resources.limits.memory: cannot read the memory quantity",
        ),
        (
            {"serviceSecret": {"value": "a-secret-of-22-letters", "existingSecret": "mine"}},
            "serviceSecret: give existingSecret or value, not both",
        ),
    ],
)
def test_values_a_schema_cannot_judge_fail_the_render(chart: helm.Chart, values: dict[str, Any], message: str) -> None:
    with pytest.raises(helm.HelmRenderError) as refused:
        chart.render(values=values, name=RELEASE)
    assert message in str(refused.value)


# --- Kubernetes' schemas -----------------------------------------------------------------------


def check_custom_resource(obj: dict[str, Any]) -> None:
    """The fields KEDA and the Prometheus Operator require of their resources."""
    kind = obj["kind"]
    assert (obj["apiVersion"], kind) in CUSTOM_RESOURCES, (obj["apiVersion"], kind)
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", obj["metadata"]["name"])
    spec = obj["spec"]
    if kind == "ScaledObject":
        assert spec["scaleTargetRef"]["name"]
        assert spec["triggers"]
        for trigger in spec["triggers"]:
            assert trigger["type"]
            # KEDA's trigger metadata is a map of strings.
            assert all(isinstance(value, str) for value in trigger["metadata"].values()), trigger
        assert 0 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]
    elif kind == "TriggerAuthentication":
        assert spec["secretTargetRef"]
        for ref in spec["secretTargetRef"]:
            assert ref["parameter"] and ref["name"] and ref["key"]
    elif kind == "PrometheusRule":
        assert isinstance(spec["groups"], list)
        for group in spec["groups"]:
            assert isinstance(group["name"], str) and group["name"]
            for rule in group["rules"]:
                assert isinstance(rule["expr"], str | int | float)
                assert ("alert" in rule) != ("record" in rule), rule
                for field in ("labels", "annotations"):
                    assert all(isinstance(value, str) for value in rule.get(field, {}).values())
    elif kind == "ServiceMonitor":
        assert isinstance(spec["selector"], dict)
        assert spec["endpoints"]
        assert all(endpoint.get("port") for endpoint in spec["endpoints"])


def test_every_object_validates_against_the_kubernetes_schemas(rendered: Rendered) -> None:
    checked = 0
    for obj in rendered.objects:
        if (obj["apiVersion"], obj["kind"]) in CUSTOM_RESOURCES:
            check_custom_resource(obj)
            continue
        for version in KUBERNETES_VERSIONS:
            try:
                kubernetes_validate.validate(obj, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                where = ".".join(str(part) for part in error.path)
                pytest.fail(f"{obj['kind']} {obj['metadata']['name']} (Kubernetes {version}): {where}: {error.message}")
        checked += 1
    assert checked >= 20


# Everything optional switched off, and the gateway on a NodePort.
BARE_VALUES: dict[str, Any] = {
    "networkPolicy": {"enabled": False},
    "topologySpread": {"enabled": False},
    "serviceAccount": {"create": False},
    "monitoring": {"podAnnotations": False, "dashboards": {"enabled": False}},
    "redis": {
        "internal": {"persistence": {"enabled": False}, "maxmemory": "1gb", "pdb": {"enabled": False}},
        "exporter": {"enabled": False},
    },
    "services": {
        kind: {"autoscaling": {"enabled": False}, "pdb": {"enabled": False}, "preStopSleepSeconds": 0}
        for kind in ("engine", "ai", "stats", "worker", "matchmaker")
    }
    | {"gateway": {"service": {"type": "NodePort", "nodePort": 30080}, "autoscaling": {"enabled": False}}},
}


def test_switched_off_parts_leave_valid_objects(chart: helm.Chart) -> None:
    bare = render(chart, BARE_VALUES)
    for obj in bare.objects:
        kubernetes_validate.validate(obj, KUBERNETES_VERSIONS[-1], strict=True)
    kinds = {obj["kind"] for obj in bare.objects}
    assert not kinds & {"NetworkPolicy", "HorizontalPodAutoscaler", "ServiceAccount"}
    assert [component(pdb) for pdb in bare.of("PodDisruptionBudget")] == ["gateway"]
    assert bare.get("Service", f"{FULLNAME}-gateway")["spec"]["ports"][0]["nodePort"] == 30080
    (redis,) = bare.of("StatefulSet")
    assert "volumeClaimTemplates" not in redis["spec"]
    # No exporter: Redis alone, no metrics Service, no metrics port let in.
    assert [each["name"] for each in pod_spec(redis)["containers"]] == ["redis"]
    assert not bare.has("Service", f"{FULLNAME}-redis-metrics")
    args = container(redis)["args"]
    assert args[args.index("--maxmemory") + 1] == "1gb"
    assert {"name": "data", "emptyDir": {}} in pod_spec(redis)["volumes"]
    for deployment in bare.of("Deployment"):
        assert pod_spec(deployment)["serviceAccountName"] == "default"
        assert "prometheus.io/scrape" not in deployment["spec"]["template"]["metadata"]["annotations"]


def test_the_validator_refuses_a_broken_object(default: Rendered) -> None:
    """The schemas are really read: an unknown field or a wrong type fails."""
    broken = copy.deepcopy(default.deployments()["engine"])
    broken["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "grpc"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[-1], strict=True)
    broken = copy.deepcopy(default.deployments()["engine"])
    broken["spec"]["replica"] = 2
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[-1], strict=True)


# --- the process kinds -------------------------------------------------------------------------


def test_one_deployment_per_enabled_kind(chart: helm.Chart, default: Rendered, cluster: Rendered) -> None:
    assert set(default.deployments()) == set(KINDS)
    assert set(chart.values["services"]) == set(KINDS)
    assert set(cluster.deployments()) == set(KINDS)
    for kind, deployment in cluster.deployments().items():
        assert deployment["metadata"]["name"] == f"{FULLNAME}-{kind}"
        assert container(deployment)["args"][0] == kind


def test_every_container_is_unprivileged_with_resources_and_probes(rendered: Rendered) -> None:
    for workload in rendered.of("Deployment") + rendered.of("StatefulSet"):
        name = workload["metadata"]["name"]
        pod = pod_spec(workload)
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] != 0, name
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", name
        assert pod["automountServiceAccountToken"] is False, name
        assert pod["enableServiceLinks"] is False, name
        assert not pod.get("hostNetwork") and not pod.get("hostPID"), name
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        for each in pod["containers"] + pod.get("initContainers", []):
            context = each["securityContext"]
            assert context["runAsNonRoot"] is True, name
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["capabilities"]["drop"] == ["ALL"], name
            assert not context.get("privileged"), name
            assert {"cpu", "memory"} <= set(each["resources"]["requests"]), name
            assert "memory" in each["resources"]["limits"], name
            assert "livenessProbe" in each, name
            assert all("hostPort" not in port for port in each.get("ports", [])), name
            # Nothing is written but /tmp (an emptyDir) and Redis's data.
            mounts = {mount["mountPath"]: mount["name"] for mount in each["volumeMounts"]}
            assert "emptyDir" in volumes[mounts["/tmp"]], name


def test_probes_fit_each_kind(rendered: Rendered) -> None:
    settings = rendered.settings()
    for kind, deployment in rendered.deployments().items():
        box = container(deployment)
        env = env_of(deployment)
        if kind == "gateway":
            assert box["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
            assert box["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
            assert port_named(deployment, "http") == int(settings["BOXEDIN_GATEWAY_PORT"])
            assert settings["BOXEDIN_GATEWAY_HOST"] == "0.0.0.0"
        elif kind == "worker":
            # Celery's `inspect ping` is heavy: the worker's own metrics say it is alive.
            assert box["livenessProbe"]["httpGet"] == {"path": "/metrics", "port": "metrics"}
        else:
            assert kind in GRPC_KINDS
            port = port_named(deployment, "grpc")
            # Liveness and readiness are separate checks of the gRPC health service: readiness
            # the overall service "" (a stalled loop, Redis away beyond the blip), liveness
            # boxedin.liveness (the process is stuck: restart it). Startup waits for liveness.
            assert box["readinessProbe"]["grpc"] == {"port": port, "service": ""}, kind
            for probe in ("startupProbe", "livenessProbe"):
                assert box[probe]["grpc"] == {"port": port, "service": LIVENESS}, (kind, probe)
            # Listens on every interface of its pod, on the port the probes and the Service use.
            assert env[f"BOXEDIN_{kind.upper()}_ADDRESS"] == f"0.0.0.0:{port}"
        # Every kind, the gateway too, serves /metrics on a port of its own.
        assert port_named(deployment, "metrics") == int(settings[f"BOXEDIN_{kind.upper()}_METRICS_PORT"])
    assert settings["BOXEDIN_METRICS_HOST"] == "0.0.0.0"


def test_health_follows_the_work_with_the_test_controls_off(rendered: Rendered) -> None:
    """The settings of boxedin.common.progress reach every pod; the test-only freeze never does."""
    settings = rendered.settings()
    assert settings["BOXEDIN_TEST_CONTROLS"] == "false" and settings["BOXEDIN_TEST_FREEZE_FILE"] == ""
    assert float(settings["BOXEDIN_REDIS_BLIP_SECONDS"]) == 10
    assert float(settings["BOXEDIN_HEALTH_LIVENESS_FACTOR"]) > 1  # stuck is far beyond not ready
    for name in ("BOXEDIN_HEALTH_STALL_FACTOR", "BOXEDIN_HEALTH_STALL_MIN_SECONDS"):
        assert float(settings[name]) > 0, name
    for kind, deployment in rendered.deployments().items():
        assert not {"BOXEDIN_TEST_CONTROLS", "BOXEDIN_TEST_FREEZE_FILE"} & set(env_of(deployment)), kind


def test_termination_leaves_time_to_drain(rendered: Rendered) -> None:
    for kind, deployment in rendered.deployments().items():
        grace = pod_spec(deployment)["terminationGracePeriodSeconds"]
        shutdown = float(env_of(deployment)["BOXEDIN_SHUTDOWN_GRACE_SECONDS"])
        pre_stop = container(deployment).get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command")
        sleep = float(pre_stop[1]) if pre_stop else 0.0
        assert grace > sleep + shutdown, kind
        if kind == "gateway":
            # Its drain comes first: the spread, and 2 s for the last clients to reconnect.
            spread = float(rendered.settings()["BOXEDIN_DRAIN_SPREAD_SECONDS"])
            assert grace > sleep + spread + 2 + shutdown and spread >= 10


def test_every_deployment_has_a_service_and_a_pdb(rendered: Rendered) -> None:
    for kind, deployment in rendered.deployments().items():
        labels = pod_labels(deployment)
        services = [svc for svc in rendered.of("Service") if selects(svc["spec"].get("selector"), labels)]
        # The gateway's metrics have a Service of their own, apart from the public one.
        names = {svc["metadata"]["name"]: svc for svc in services}
        expected = {deployment["metadata"]["name"]} | ({f"{FULLNAME}-gateway-metrics"} if kind == "gateway" else set())
        assert set(names) == expected, kind
        service = names[deployment["metadata"]["name"]]
        if kind == "worker":
            assert service["spec"]["clusterIP"] == "None"
            assert [port["name"] for port in service["spec"]["ports"]] == ["metrics"]
        budgets = [
            pdb for pdb in rendered.of("PodDisruptionBudget") if selects(pdb["spec"]["selector"]["matchLabels"], labels)
        ]
        assert len(budgets) == 1, kind
        assert set(budgets[0]["spec"]) & {"maxUnavailable", "minAvailable"}


def test_services_reach_each_other_through_their_services(rendered: Rendered) -> None:
    settings = rendered.settings()
    for kind in GRPC_KINDS:
        if kind not in rendered.deployments():
            continue
        address = settings[f"BOXEDIN_{kind.upper()}_ADDRESS"]
        # dns:/// and a headless Service: the clients balance their calls over the pods.
        assert address.startswith("dns:///"), address
        host, port = address.removeprefix("dns:///").rsplit(":", 1)
        service = rendered.get("Service", host)
        assert service["spec"]["clusterIP"] == "None"
        assert {"name": "grpc", "port": int(port), "targetPort": "grpc", "protocol": "TCP"} in service["spec"]["ports"]
        assert not service["spec"].get("publishNotReadyAddresses")  # a pod not ready is not resolved
    # The engine's callers resolve its Service's name to every pod (boxedin.common.engine_router).
    if "engine" not in rendered.deployments():
        return
    engine = EngineAddress.parse(settings["BOXEDIN_ENGINE_ADDRESS"])
    assert not engine.fixed and [host for host, _ in engine.names] == [
        rendered.get("Service", host)["metadata"]["name"] for host, _ in engine.names
    ]
    assert settings["BOXEDIN_ENGINE_ROUTING"] == "partition"


def test_only_the_gateway_is_exposed(rendered: Rendered) -> None:
    gateway = f"{FULLNAME}-gateway"
    for service in rendered.of("Service"):
        if service["spec"].get("type", "ClusterIP") != "ClusterIP":
            assert service["metadata"]["name"] == gateway
            assert service["spec"]["type"] in ("NodePort", "LoadBalancer")
    for ingress in rendered.of("Ingress"):
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                assert path["backend"]["service"] == {"name": gateway, "port": {"name": "http"}}
        # Websockets stay open: nginx's 60 s default would cut them.
        annotations = ingress["metadata"]["annotations"]
        assert annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] == "3600"
        assert annotations["nginx.ingress.kubernetes.io/proxy-send-timeout"] == "3600"


def test_the_gateway_metrics_are_neither_public_nor_routed(rendered: Rendered) -> None:
    """The gateway's /metrics port is on its -metrics Service (headless, for Prometheus) only:
    not on the public Service (ClusterIP, NodePort or LoadBalancer) nor behind the Ingress."""
    gateway = rendered.deployments()["gateway"]
    metrics_port = port_named(gateway, "metrics")
    assert metrics_port != port_named(gateway, "http")
    public = rendered.get("Service", f"{FULLNAME}-gateway")
    assert [(port["name"], port["targetPort"]) for port in public["spec"]["ports"]] == [("http", "http")]
    assert "boxedin/metrics" not in public["metadata"]["labels"]
    internal = rendered.get("Service", f"{FULLNAME}-gateway-metrics")
    assert internal["spec"]["type"] == "ClusterIP" and internal["spec"]["clusterIP"] == "None"
    assert internal["spec"]["ports"] == [
        {"name": "metrics", "port": metrics_port, "targetPort": "metrics", "protocol": "TCP"}
    ]
    routed = [
        path["backend"]["service"]
        for ingress in rendered.of("Ingress")
        for rule in ingress["spec"]["rules"]
        for path in rule["http"]["paths"]
    ]
    assert all(backend == {"name": public["metadata"]["name"], "port": {"name": "http"}} for backend in routed)
    assert bool(routed) == bool(rendered.of("Ingress"))


def test_the_gateway_is_exposed_only_when_asked(default: Rendered, cluster: Rendered) -> None:
    assert {svc["spec"]["type"] for svc in default.of("Service")} == {"ClusterIP"}
    assert default.of("Ingress") == []
    exposed = [svc for svc in cluster.of("Service") if svc["spec"]["type"] != "ClusterIP"]
    assert [svc["metadata"]["name"] for svc in exposed] == [f"{FULLNAME}-gateway"]
    assert exposed[0]["spec"]["loadBalancerSourceRanges"] == ["203.0.113.0/24"]


# --- autoscaling -------------------------------------------------------------------------------


def autoscaled(rendered: Rendered) -> dict[str, str]:
    """Each autoscaled Deployment's name -> what scales it."""
    found = {}
    for hpa in rendered.of("HorizontalPodAutoscaler"):
        (metric,) = hpa["spec"]["metrics"]
        assert metric["type"] == "Resource" and metric["resource"]["name"] == "cpu"
        assert metric["resource"]["target"]["type"] == "Utilization"
        found[hpa["spec"]["scaleTargetRef"]["name"]] = "cpu"
    for scaled in rendered.of("ScaledObject"):
        assert scaled["spec"]["scaleTargetRef"]["name"] not in found, "an HPA and a ScaledObject on one Deployment"
        found[scaled["spec"]["scaleTargetRef"]["name"]] = "keda"
    return found


def test_gateway_and_engine_scale_on_cpu_and_workers_on_their_queue(default: Rendered, production: Rendered) -> None:
    name = {kind: f"{FULLNAME}-{kind}" for kind in KINDS}
    assert autoscaled(default) == {name["gateway"]: "cpu", name["engine"]: "cpu", name["worker"]: "cpu"}
    assert autoscaled(production) == {name["gateway"]: "cpu", name["engine"]: "cpu", name["worker"]: "keda"}
    # An autoscaled Deployment leaves its replica count to the autoscaler.
    for kind, deployment in production.deployments().items():
        assert ("replicas" in deployment["spec"]) == (deployment["metadata"]["name"] not in autoscaled(production)), (
            kind
        )
    (scaled,) = production.of("ScaledObject")
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "redis"
    # The list Celery keeps its queue in, prefix included, as the services name it.
    assert trigger["metadata"]["listName"] == celery_queue(production.settings()["BOXEDIN_KEY_PREFIX"])
    assert trigger["metadata"]["address"] == production.values["keda"]["redisAddress"]
    assert trigger["metadata"]["enableTLS"] == "true"
    auth = production.get("TriggerAuthentication", trigger["authenticationRef"]["name"])
    assert auth["spec"]["secretTargetRef"] == [
        {"parameter": "password", "name": "boxedin-redis-broker-password", "key": "password"}
    ]
    assert scaled["spec"]["minReplicaCount"] == 2 and scaled["spec"]["maxReplicaCount"] == 30


# --- the services' shared secret -----------------------------------------------------------------


def test_every_grpc_process_takes_the_service_secret_from_a_secret(rendered: Rendered) -> None:
    """The gateway, engine, AI, stats and matchmaker (every process that serves or makes gRPC
    calls) get BOXEDIN_SERVICE_SECRET from the Secret: the chart's, or yours when named."""
    yours = rendered.values.get("serviceSecret", {}).get("existingSecret")
    assert set(rendered.deployments()) >= SECRET_KINDS
    for kind, deployment in rendered.deployments().items():
        expected = {"secretKeyRef": {"name": yours or SERVICE_SECRET, "key": "service-secret"}}
        assert env_of(deployment).get("BOXEDIN_SERVICE_SECRET") == (expected if kind in SECRET_KINDS else None), kind
    made = [secret for secret in rendered.of("Secret") if secret["metadata"]["name"] == SERVICE_SECRET]
    if yours:
        assert made == [] and not rendered.has("Secret", yours)
    else:
        (secret,) = made
        # One the services accept.
        assert service_auth.check_secret(secret_value(secret))
    for config_map in rendered.of("ConfigMap"):
        assert "BOXEDIN_SERVICE_SECRET" not in config_map["data"], config_map["metadata"]["name"]
        for secret in made:
            assert all(secret_value(secret) not in text for text in config_map["data"].values())


def test_a_service_secret_the_chart_makes_is_random_and_in_the_pods_checksum(chart: helm.Chart) -> None:
    made = []
    for _ in range(2):
        manifests = chart.render(values={}, name=RELEASE, namespace=NAMESPACE)
        secrets = manifests["boxedin/templates/secrets.yaml"]
        (secret,) = [obj for obj in load_manifests(secrets) if obj and obj["metadata"]["name"] == SERVICE_SECRET]
        made.append(secret_value(secret))
        assert re.fullmatch(r"[A-Za-z0-9]{48}", made[-1])
        # Chosen once per render: the pods' checksum is that of the Secret made.
        deployments = [obj for obj in load_manifests(manifests["boxedin/templates/services.yaml"])
                       if obj and obj["kind"] == "Deployment"]  # fmt: skip
        for deployment in deployments:
            annotations = deployment["spec"]["template"]["metadata"]["annotations"]
            assert annotations["checksum/secrets"] == hashlib.sha256(secrets.encode()).hexdigest()
    # Without a cluster `lookup` finds no installed Secret to keep: each rendering makes its own.
    assert made[0] != made[1]


def test_a_service_secret_given_is_used_as_given(chart: helm.Chart) -> None:
    def checksums(result: Rendered) -> set[str]:
        return {d["spec"]["template"]["metadata"]["annotations"]["checksum/secrets"] for d in result.of("Deployment")}

    # The chart's Redis password given too: else the one it makes changes at every rendering.
    redis = {"auth": {"password": "a-redis-password-for-tests"}}
    given = render(chart, {"serviceSecret": {"value": "a-secret-of-22-letters"}, "redis": redis})
    assert secret_value(given.get("Secret", SERVICE_SECRET)) == "a-secret-of-22-letters"
    # A given value renders the same each time; another value rolls the pods.
    again = render(chart, {"serviceSecret": {"value": "a-secret-of-22-letters"}, "redis": redis})
    assert checksums(given) == checksums(again)
    other = render(chart, {"serviceSecret": {"value": "another-secret-22-long"}, "redis": redis})
    assert checksums(given).isdisjoint(checksums(other))

    yours = render(chart, {"serviceSecret": {"existingSecret": "our-secret", "key": "hmac"}})
    assert not yours.has("Secret", SERVICE_SECRET)
    for kind in SECRET_KINDS:
        ref = env_of(yours.deployments()[kind])["BOXEDIN_SERVICE_SECRET"]
        assert ref == {"secretKeyRef": {"name": "our-secret", "key": "hmac"}}, kind


# --- network policies ----------------------------------------------------------------------------


def policies_for(rendered: Rendered, labels: dict[str, str]) -> list[dict[str, Any]]:
    return [
        policy
        for policy in rendered.of("NetworkPolicy")
        if selects(policy["spec"]["podSelector"]["matchLabels"], labels)
    ]


def test_network_policies_let_in_only_what_each_pod_serves(chart: helm.Chart, rendered: Rendered) -> None:
    # The gRPC kinds are the services that hold their callers (CALLERS is taken from them).
    assert set(service_auth.CALLERS) == set(GRPC_KINDS)
    values = chart.merge_values(rendered.values)
    metrics_from = values["networkPolicy"]["metricsFrom"]
    gateway_from = values["networkPolicy"]["gatewayFrom"]
    for workload in rendered.of("Deployment") + rendered.of("StatefulSet"):
        kind = component(workload)
        (policy,) = policies_for(rendered, pod_labels(workload))
        assert policy["spec"]["policyTypes"] == ["Ingress"]
        rules = {rule["ports"][0]["port"]: rule.get("from") for rule in policy["spec"]["ingress"]}
        if kind == "gateway":
            # The only pod open to the world (or to networkPolicy.gatewayFrom, and then also to
            # the `helm test` pod); its metrics only to Prometheus.
            http_from = gateway_from + [TEST_POD_PEER] if gateway_from and values["tests"]["enabled"] else None
            assert rules == {"http": http_from, "metrics": metrics_from}
        elif kind in GRPC_KINDS and not CALLERS[kind]:
            assert rules == {"metrics": metrics_from}  # nobody may call it
        elif kind in GRPC_KINDS:
            assert rules["metrics"] == metrics_from
            (peer,) = rules["grpc"]
            expressions = {e["key"]: set(e["values"]) for e in peer["podSelector"]["matchExpressions"]}
            assert expressions == {
                "app.kubernetes.io/instance": {RELEASE},
                "app.kubernetes.io/component": CALLERS[kind],
            }
        elif kind == "worker":
            assert rules == {"metrics": metrics_from}
        else:
            assert kind in ("redis", "redis-broker")
            peers = rules["redis"]
            assert peers[0] == {
                "podSelector": {"matchLabels": {"app.kubernetes.io/instance": RELEASE, "boxedin/redis-client": "true"}}
            }
            # Besides the services, only KEDA's operator (when it reads the queue there).
            assert len(peers) == (2 if values["keda"]["enabled"] else 1)
    # Every service's pods carry the label Redis lets in.
    for deployment in rendered.of("Deployment"):
        assert pod_labels(deployment)["boxedin/redis-client"] == "true"


def test_the_engines_action_port_is_served_and_let_in_as_its_grpc_port(chart: helm.Chart, rendered: Rendered) -> None:
    values = chart.merge_values(rendered.values)
    engine = rendered.deployments()["engine"]
    act_port = values["services"]["engine"]["actPort"]
    # The engine listens where the chart says (its callers learn it with GetActPort) ...
    assert env_of(engine)["BOXEDIN_ENGINE_ACT_PORT"] == str(act_port)
    assert port_named(engine, "act") == act_port
    assert rendered.settings()["BOXEDIN_ENGINE_ACT_SOCKET"] == str(values["settings"]["engineActSocket"]).lower()
    # ... and its network policy lets in on it exactly the callers of its gRPC port.
    if values["networkPolicy"]["enabled"]:
        (policy,) = policies_for(rendered, pod_labels(engine))
        (rule,) = [r for r in policy["spec"]["ingress"] if r["ports"][0]["port"] == "grpc"]
        assert [port["port"] for port in rule["ports"]] == ["grpc", "act"]
    # No other kind has one.
    for kind, workload in rendered.deployments().items():
        if kind != "engine":
            assert "BOXEDIN_ENGINE_ACT_PORT" not in env_of(workload), kind


# --- helm test ---------------------------------------------------------------------------------

# The peer the gateway's NetworkPolicy lets in for the `helm test` pod.
TEST_POD_PEER = {
    "podSelector": {"matchLabels": {"app.kubernetes.io/instance": RELEASE, "app.kubernetes.io/component": "test"}}
}


def test_helm_test_pod_plays_a_game_through_the_gateway_service(chart: helm.Chart, rendered: Rendered) -> None:
    values = chart.merge_values(rendered.values)
    (pod,) = rendered.of("Pod")
    assert pod["metadata"]["name"] == f"{FULLNAME}-test-play"
    annotations = pod["metadata"]["annotations"]
    assert annotations["helm.sh/hook"] == "test"
    # Kept for `kubectl logs` when it fails; replaced by the next `helm test`.
    assert annotations["helm.sh/hook-delete-policy"] == "before-hook-creation,hook-succeeded"
    spec = pod["spec"]
    assert spec["restartPolicy"] == "Never"
    assert 0 < spec["activeDeadlineSeconds"] <= 600
    (box,) = spec["containers"]
    gateway_service = rendered.get("Service", f"{FULLNAME}-gateway")
    (http,) = [port for port in gateway_service["spec"]["ports"] if port["name"] == "http"]
    # Through the entrypoint's `boxedin COMMAND`, to the gateway's public Service, as players come.
    assert box["args"][:4] == ["boxedin", "smoke", "--url", f"http://{FULLNAME}-gateway:{http['port']}"]
    assert box["args"][4:] == ["--timeout", str(values["tests"]["timeoutSeconds"])]
    assert box["image"] == container(rendered.deployments()["gateway"])["image"]
    # As unprivileged as every other pod of the chart.
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["automountServiceAccountToken"] is False
    assert spec["enableServiceLinks"] is False
    context = box["securityContext"]
    assert context["readOnlyRootFilesystem"] is True and context["allowPrivilegeEscalation"] is False
    assert context["capabilities"]["drop"] == ["ALL"]
    assert {"cpu", "memory"} <= set(box["resources"]["requests"]) and "memory" in box["resources"]["limits"]
    volumes = {volume["name"]: volume for volume in spec["volumes"]}
    assert "emptyDir" in volumes[{m["mountPath"]: m["name"] for m in box["volumeMounts"]}["/tmp"]]
    # The gateway's NetworkPolicy lets it in: no policy (anyone), or its peer among gatewayFrom.
    gateway_policy = (
        rendered.get("NetworkPolicy", f"{FULLNAME}-gateway") if values["networkPolicy"]["enabled"] else None
    )
    if gateway_policy is not None:
        (http_rule,) = [rule for rule in gateway_policy["spec"]["ingress"] if rule["ports"][0]["port"] == "http"]
        peers = http_rule.get("from")
        assert peers is None or any(
            selects(peer.get("podSelector", {}).get("matchLabels"), pod["metadata"]["labels"])
            and "namespaceSelector" not in peer
            for peer in peers
        )
    # ... and it is not one of the pods the Services or the PodDisruptionBudgets select.
    for selecting in rendered.of("Service") + rendered.of("PodDisruptionBudget"):
        selector = selecting["spec"].get("selector") or {}
        assert not selects(selector.get("matchLabels", selector), pod["metadata"]["labels"]), selecting["metadata"]


def test_helm_test_pod_is_reachable_when_gateway_from_narrows_the_gateway(chart: helm.Chart) -> None:
    narrowed = render(chart, {"networkPolicy": {"gatewayFrom": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}})
    policy = narrowed.get("NetworkPolicy", f"{FULLNAME}-gateway")
    (http_rule,) = [rule for rule in policy["spec"]["ingress"] if rule["ports"][0]["port"] == "http"]
    assert http_rule["from"] == [{"ipBlock": {"cidr": "10.0.0.0/8"}}, TEST_POD_PEER]
    for obj in narrowed.objects:
        if obj["kind"] in ("Pod", "NetworkPolicy"):
            kubernetes_validate.validate(obj, KUBERNETES_VERSIONS[-1], strict=True)


def test_helm_test_pod_can_be_switched_off(chart: helm.Chart) -> None:
    off = render(
        chart, {"tests": {"enabled": False}, "networkPolicy": {"gatewayFrom": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}}
    )
    assert off.of("Pod") == []
    policy = off.get("NetworkPolicy", f"{FULLNAME}-gateway")
    (http_rule,) = [rule for rule in policy["spec"]["ingress"] if rule["ports"][0]["port"] == "http"]
    assert http_rule["from"] == [{"ipBlock": {"cidr": "10.0.0.0/8"}}]
    assert "helm test" not in off.notes
