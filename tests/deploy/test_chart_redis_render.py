"""The chart's Redis as rendered: internal, external and cluster modes, its password from a Secret
everywhere the URL is built, maxmemory from the memory limit, readiness that waits for the data,
its disruption budget and exporter, and Celery's broker apart in production."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import helm_python as helm
import kubernetes_validate
import pytest
import yaml

from chart_render import (
    CLUSTER_VALUES,
    CUSTOM_RESOURCES,
    FULLNAME,
    KUBERNETES_VERSIONS,
    Rendered,
    component,
    container,
    env_of,
    pod_labels,
    pod_spec,
    render,
    secret_value,
    selects,
)

# --- Redis ---------------------------------------------------------------------------------------


def test_default_redis_is_a_persistent_statefulset(default: Rendered) -> None:
    (redis,) = default.of("StatefulSet")
    assert redis["metadata"]["name"] == f"{FULLNAME}-redis"
    args = container(redis)["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--maxmemory-policy") + 1] == "noeviction"
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == "data"
    assert {"name": "data", "mountPath": "/data"} in container(redis)["volumeMounts"]
    # The URL carries the password, put in by Kubernetes from the Secret: never in the ConfigMap.
    assert "BOXEDIN_REDIS_URL" not in default.settings()
    for kind, deployment in default.deployments().items():
        assert env_urls(deployment) == {"BOXEDIN_REDIS_URL": f"redis://:$({PASSWORD_VAR})@{FULLNAME}-redis:6379/0"}, (
            kind
        )
    assert default.settings()["BOXEDIN_REDIS_CLUSTER"] == "false"
    assert default.get("Service", f"{FULLNAME}-redis")["spec"]["ports"][0]["port"] == 6379


def test_external_redis_comes_from_a_secret(production: Rendered) -> None:
    assert production.of("StatefulSet") == []
    assert "BOXEDIN_REDIS_URL" not in production.settings()
    for kind, deployment in production.deployments().items():
        assert env_of(deployment)["BOXEDIN_REDIS_URL"] == {
            "secretKeyRef": {"name": "boxedin-redis", "key": "redis-url"}
        }, kind
    # Only the gateway gets the ops token, from its Secret; production mode is on.
    for kind, deployment in production.deployments().items():
        token = env_of(deployment).get("BOXEDIN_OPS_TOKEN")
        assert token == ({"secretKeyRef": {"name": "boxedin-ops", "key": "ops-token"}} if kind == "gateway" else None)
    assert production.settings()["BOXEDIN_PRODUCTION"] == "true"
    # No Secret holds a value given in clear.
    assert production.of("Secret") == []


def test_redis_cluster_mode_gives_celery_a_plain_redis(cluster: Rendered) -> None:
    settings = cluster.settings()
    assert settings["BOXEDIN_REDIS_CLUSTER"] == "true"
    assert "BOXEDIN_REDIS_URL" not in settings
    broker = f"{FULLNAME}-redis-broker"
    # Celery's URL carries the broker's password, from the chart's Secret.
    assert "BOXEDIN_CELERY_BROKER_URL" not in settings
    for kind, deployment in cluster.deployments().items():
        urls = env_urls(deployment)
        assert urls["BOXEDIN_CELERY_BROKER_URL"] == f"redis://:$({PASSWORD_VAR})@{broker}:6379/0", kind
    (statefulset,) = cluster.of("StatefulSet")
    assert statefulset["metadata"]["name"] == broker
    assert "volumeClaimTemplates" not in statefulset["spec"]
    # The cluster's URL, from the Secret the chart made from redis.url.
    secret = cluster.get("Secret", f"{FULLNAME}-redis-url")
    assert secret["stringData"] == {"redis-url": CLUSTER_VALUES["redis"]["url"]}
    for deployment in cluster.deployments().values():
        assert env_of(deployment)["BOXEDIN_REDIS_URL"] == {
            "secretKeyRef": {"name": secret["metadata"]["name"], "key": "redis-url"}
        }
    # KEDA watches Celery's queue on the broker, not on the Cluster, with the broker's password.
    (scaled,) = cluster.of("ScaledObject")
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["metadata"]["address"] == f"{broker}:6379"
    auth = cluster.get("TriggerAuthentication", trigger["authenticationRef"]["name"])
    assert auth["spec"]["secretTargetRef"] == [{"parameter": "password", "name": REDIS_AUTH, "key": "redis-password"}]


# --- the chart's Redis: password, maxmemory, probes, budget, exporter ----------------------------

REDIS_AUTH = f"{FULLNAME}-redis-auth"
PASSWORD_VAR = "BOXEDIN_CHART_REDIS_PASSWORD"
PASSWORD_REF = {"secretKeyRef": {"name": REDIS_AUTH, "key": "redis-password"}}


def env_urls(deployment: dict[str, Any]) -> dict[str, Any]:
    """A Deployment's Redis URLs (the games', Celery's); where one is built with the chart's
    password, that password comes from the Secret, earlier in the list (Kubernetes expands a
    $(NAME) only of a variable defined before it)."""
    env = container(deployment)["env"]
    names = [item["name"] for item in env]
    urls = {name: value for name, value in env_of(deployment).items() if name.endswith("_URL")}
    for name, value in urls.items():
        if isinstance(value, str) and f"$({PASSWORD_VAR})" in value:
            assert env_of(deployment)[PASSWORD_VAR] == PASSWORD_REF
            assert names.index(PASSWORD_VAR) < names.index(name)
    return urls


def chart_redis(rendered: Rendered) -> list[dict[str, Any]]:
    return rendered.of("StatefulSet")


def redis_passwords(rendered: Rendered) -> list[str]:
    return [
        secret_value(secret, "redis-password")
        for secret in rendered.of("Secret")
        if secret["metadata"]["name"] == REDIS_AUTH
    ]


def test_the_chart_redis_takes_a_password_from_a_secret(rendered: Rendered) -> None:
    """requirepass from the Secret, for Redis and for every client of it (probes, exporter,
    services, Celery), and the password in no ConfigMap, no argument, no literal value."""
    servers = chart_redis(rendered)
    passwords = redis_passwords(rendered)
    assert len(passwords) == (1 if servers else 0)
    for password in passwords:
        assert re.fullmatch(r"[A-Za-z0-9]{32}", password)
        for config_map in rendered.of("ConfigMap"):
            assert all(password not in text for text in config_map["data"].values()), config_map["metadata"]["name"]
        for workload in rendered.of("Deployment") + rendered.of("StatefulSet"):
            assert password not in yaml.safe_dump(workload), workload["metadata"]["name"]
    for redis in servers:
        server = container(redis, "redis")
        assert server["command"][:2] == ["sh", "-c"]
        # requirepass from the variable, in a file of its own; then redis-server's arguments.
        assert "requirepass" in server["command"][2] and '"$REDISCLI_AUTH"' in server["command"][2]
        assert 'exec redis-server /tmp/redis-auth.conf "$@"' in server["command"][2]
        assert {"name": "REDISCLI_AUTH", "valueFrom": PASSWORD_REF} in server["env"]
        args = server["args"]
        assert args[args.index("--protected-mode") + 1] == "yes"
    for deployment in rendered.of("Deployment"):
        env_urls(deployment)
    for config_map in rendered.of("ConfigMap"):
        assert not {"BOXEDIN_REDIS_URL", "BOXEDIN_CELERY_BROKER_URL", PASSWORD_VAR} & set(config_map["data"])


def test_a_redis_password_of_yours_is_used_everywhere(chart: helm.Chart) -> None:
    mine = render(chart, {"redis": {"auth": {"existingSecret": "our-redis", "key": "pw"}}})
    assert not mine.has("Secret", REDIS_AUTH)
    ref = {"secretKeyRef": {"name": "our-redis", "key": "pw"}}
    (redis,) = mine.of("StatefulSet")
    assert {"name": "REDISCLI_AUTH", "valueFrom": ref} in container(redis, "redis")["env"]
    assert {"name": "REDIS_PASSWORD", "valueFrom": ref} in container(redis, "exporter")["env"]
    for deployment in mine.of("Deployment"):
        assert env_of(deployment)[PASSWORD_VAR] == ref
    given = render(chart, {"redis": {"auth": {"password": "a-redis-password-for-tests"}}})
    assert redis_passwords(given) == ["a-redis-password-for-tests"]


def test_a_chart_redis_password_is_random_and_rolls_redis(chart: helm.Chart) -> None:
    def once() -> tuple[str, str]:
        rendered = render(chart, {})
        (password,) = redis_passwords(rendered)
        (redis,) = rendered.of("StatefulSet")
        return password, redis["spec"]["template"]["metadata"]["annotations"]["checksum/redis-auth"]

    first, second = once(), once()
    # `lookup` finds no installed Secret here: each rendering makes its own, and restarts Redis.
    assert first[0] != second[0] and first[1] != second[1]
    assert first[1] == hashlib.sha256(first[0].encode()).hexdigest()


@pytest.mark.parametrize(
    ("limit", "percent", "expected"),
    [
        ("2Gi", 80, 2 * 1024**3 * 80 // 100),  # 1717986918
        ("512Mi", 80, 512 * 1024**2 * 80 // 100),  # 429496729
        ("1.5Gi", 75, int(1.5 * 1024**3) * 75 // 100),
        ("3G", 50, 1_500_000_000),
    ],
)
def test_maxmemory_is_a_share_of_the_memory_limit(chart: helm.Chart, limit: str, percent: int, expected: int) -> None:
    resources = {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": limit}}
    rendered = render(
        chart,
        {
            "redis": {
                "internal": {"resources": resources, "maxmemoryPercent": percent},
                "broker": {"enabled": True, "resources": resources, "maxmemoryPercent": percent},
            }
        },
    )
    for redis in rendered.of("StatefulSet"):
        server = container(redis, "redis")
        assert server["resources"]["limits"]["memory"] == limit
        args = server["args"]
        assert args[args.index("--maxmemory") + 1] == str(expected), redis["metadata"]["name"]
        assert args[args.index("--maxmemory-policy") + 1] == "noeviction"


def test_maxmemory_defaults_and_overrides(default: Rendered, cluster: Rendered, chart: helm.Chart) -> None:
    def maxmemory(rendered: Rendered) -> dict[str, str]:
        found = {}
        for redis in rendered.of("StatefulSet"):
            args = container(redis, "redis")["args"]
            found[component(redis)] = args[args.index("--maxmemory") + 1]
        return found

    # 80% of the default limits: 2Gi for the games' Redis, 512Mi for Celery's broker.
    assert maxmemory(default) == {"redis": "1717986918"}
    assert maxmemory(cluster) == {"redis-broker": "429496729"}
    assert maxmemory(render(chart, {"redis": {"internal": {"maxmemory": "1500mb"}}})) == {"redis": "1500mb"}
    with pytest.raises(helm.HelmRenderError) as refused:
        render(
            chart, {"redis": {"internal": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": None}}}}
        )
    assert "redis.internal needs resources.limits.memory" in str(refused.value)


READY = "test \"$(redis-cli -p 6379 ping)\" = PONG && redis-cli -p 6379 info persistence | grep -q '^loading:0'"


def test_redis_readiness_needs_pong_and_its_data_loaded(rendered: Rendered) -> None:
    for redis in chart_redis(rendered):
        server = container(redis, "redis")
        assert server["readinessProbe"]["exec"]["command"] == ["sh", "-c", READY]
        # Liveness apart and lenient: any answer of a running server (loading, refusing writes)
        # keeps it alive; only a minute and a half without one restarts it.
        alive = server["livenessProbe"]
        assert (
            alive["exec"]["command"][:2] == ["sh", "-c"]
            and alive["exec"]["command"] != server["readinessProbe"]["exec"]["command"]
        )
        assert all(word in alive["exec"]["command"][2] for word in ("PONG", "LOADING*", "MISCONF*"))
        assert alive["periodSeconds"] * alive["failureThreshold"] >= 60
        assert server["startupProbe"]["exec"] == alive["exec"]


def test_the_chart_redis_has_a_disruption_budget(default: Rendered, cluster: Rendered) -> None:
    for rendered, kind, budget in (
        (default, "redis", {"maxUnavailable": 0}),
        (cluster, "redis-broker", {"maxUnavailable": 1}),
    ):
        (redis,) = rendered.of("StatefulSet")
        budgets = [
            pdb
            for pdb in rendered.of("PodDisruptionBudget")
            if selects(pdb["spec"]["selector"]["matchLabels"], pod_labels(redis))
        ]
        assert [pdb["metadata"]["name"] for pdb in budgets] == [f"{FULLNAME}-{kind}"]
        assert {key: budgets[0]["spec"][key] for key in budget} == budget
        assert budgets[0]["spec"]["unhealthyPodEvictionPolicy"] == "AlwaysAllow"


def test_redis_exporter_is_beside_each_chart_redis_and_scraped(rendered: Rendered, chart: helm.Chart) -> None:
    values = chart.merge_values(rendered.values)
    metrics_from = values["networkPolicy"]["metricsFrom"]
    for redis in chart_redis(rendered):
        kind = component(redis)
        assert [each["name"] for each in pod_spec(redis)["containers"]] == ["redis", "exporter"]
        exporter = container(redis, "exporter")
        # The standard exporter, at a pinned release.
        assert re.fullmatch(r"oliver006/redis_exporter:v\d+\.\d+\.\d+", exporter["image"])
        env = {item["name"]: item.get("value", item.get("valueFrom")) for item in exporter["env"]}
        assert env["REDIS_ADDR"] == "redis://localhost:6379"
        assert env["REDIS_PASSWORD"] == PASSWORD_REF
        (port,) = [each["containerPort"] for each in exporter["ports"] if each["name"] == "metrics"]
        assert env["REDIS_EXPORTER_WEB_LISTEN_ADDRESS"] == f"0.0.0.0:{port}"
        assert exporter["livenessProbe"]["httpGet"] == {"path": "/health", "port": "metrics"}
        # Its metrics Service, which the ServiceMonitor selects, under the job boxedin-KIND.
        service = rendered.get("Service", f"{FULLNAME}-{kind}-metrics")
        assert service["metadata"]["labels"]["boxedin/job"] == f"boxedin-{kind}"
        assert service["spec"]["clusterIP"] == "None"
        assert service["spec"]["ports"] == [
            {"name": "metrics", "port": port, "targetPort": "metrics", "protocol": "TCP"}
        ]
        assert selects(service["spec"]["selector"], pod_labels(redis))
        for monitor in rendered.of("ServiceMonitor"):
            assert selects(monitor["spec"]["selector"]["matchLabels"], service["metadata"]["labels"])
            assert monitor["spec"]["jobLabel"] == "boxedin/job"
            assert [endpoint["port"] for endpoint in monitor["spec"]["endpoints"]] == ["metrics"]
        # The plain scrape config: the pod's annotations and its job label.
        template = redis["spec"]["template"]["metadata"]
        assert template["labels"]["boxedin/job"] == f"boxedin-{kind}"
        assert template["annotations"]["prometheus.io/port"] == str(port)
        # Prometheus (only) may reach it.
        (policy,) = [
            p
            for p in rendered.of("NetworkPolicy")
            if selects(p["spec"]["podSelector"]["matchLabels"], pod_labels(redis))
        ]
        rules = {rule["ports"][0]["port"]: rule.get("from") for rule in policy["spec"]["ingress"]}
        assert rules["metrics"] == metrics_from
        # The games' Redis is never the exporter's port, nor the other way round.
        assert port != 6379


def test_production_gives_celery_a_redis_of_its_own(production: Rendered) -> None:
    """The games' Redis never holds Celery's queue in production: the broker URL is another
    Secret's, and KEDA watches the queue there."""
    games = production.values["redis"]
    broker = games["broker"]
    assert broker["existingSecret"] and broker["existingSecret"] != games["existingSecret"]
    for kind, deployment in production.deployments().items():
        urls = env_urls(deployment)
        assert urls["BOXEDIN_CELERY_BROKER_URL"] == {
            "secretKeyRef": {"name": broker["existingSecret"], "key": broker["key"]}
        }, kind
        assert urls["BOXEDIN_REDIS_URL"] != urls["BOXEDIN_CELERY_BROKER_URL"]
    (scaled,) = production.of("ScaledObject")
    assert scaled["spec"]["triggers"][0]["metadata"]["address"] == production.values["keda"]["redisAddress"]
    assert "broker" in production.values["keda"]["redisAddress"]


def test_keda_reads_the_chart_redis_with_its_password(chart: helm.Chart) -> None:
    rendered = render(chart, {"keda": {"enabled": True}})
    (scaled,) = rendered.of("ScaledObject")
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["metadata"]["address"] == f"{FULLNAME}-redis:6379"
    auth = rendered.get("TriggerAuthentication", trigger["authenticationRef"]["name"])
    assert auth["spec"]["secretTargetRef"] == [{"parameter": "password", "name": REDIS_AUTH, "key": "redis-password"}]


def test_the_chart_can_run_celery_a_broker_beside_an_external_redis(chart: helm.Chart) -> None:
    values = {
        "redis": {"mode": "external", "existingSecret": "games", "broker": {"enabled": True}},
        "keda": {"enabled": True},
    }
    rendered = render(chart, values)
    (redis,) = rendered.of("StatefulSet")
    assert component(redis) == "redis-broker"
    for obj in rendered.objects:
        if (obj["apiVersion"], obj["kind"]) not in CUSTOM_RESOURCES:
            kubernetes_validate.validate(obj, KUBERNETES_VERSIONS[-1], strict=True)
    for deployment in rendered.of("Deployment"):
        urls = env_urls(deployment)
        assert urls["BOXEDIN_REDIS_URL"] == {"secretKeyRef": {"name": "games", "key": "redis-url"}}
        assert urls["BOXEDIN_CELERY_BROKER_URL"] == f"redis://:$({PASSWORD_VAR})@{FULLNAME}-redis-broker:6379/0"
    (scaled,) = rendered.of("ScaledObject")
    assert scaled["spec"]["triggers"][0]["metadata"]["address"] == f"{FULLNAME}-redis-broker:6379"
