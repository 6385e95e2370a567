"""The chart's settings and monitoring: every setting of the services reachable through values
and reaching the pods, a settings change rolling them, and the rules, dashboards and scrape
jobs shipped as the monitoring files are written."""

from __future__ import annotations

import json
import re
from typing import Any

import helm_python as helm
import yaml

from boxedin.common.settings import Settings

from chart_render import (
    FILES,
    FULLNAME,
    KINDS,
    NAMESPACE,
    ROOT,
    Rendered,
    component,
    env_of,
    pod_labels,
    port_named,
    render,
    selects,
)

# --- settings ------------------------------------------------------------------------------------


def readme_settings() -> set[str]:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("## Settings", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`(BOXEDIN_[A-Z0-9_]+)`", table))


def test_the_readme_says_how_to_pass_the_ops_token() -> None:
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `BOXEDIN_OPS_TOKEN`"))
    assert 'BOXEDIN_OPS_TOKEN="$(openssl rand -hex 24)" bash scripts/run' in row  # a local run
    assert "Authorization: Bearer" in row  # a script
    values = yaml.safe_load((ROOT / "deploy" / "helm" / "boxedin" / "values.yaml").read_text())
    for named in re.findall(r"`opsToken\.(\w+)`", row):  # the chart's values the row names exist
        assert named in values["opsToken"], named
    assert re.findall(r"`opsToken\.(\w+)`", row) == ["value", "existingSecret"]


def reachable(*results: Rendered) -> set[str]:
    names: set[str] = set()
    for result in results:
        names |= set(result.settings())
        for deployment in result.of("Deployment"):
            names |= set(env_of(deployment))
    return names


def test_every_setting_is_reachable(default: Rendered, production: Rendered, cluster: Rendered) -> None:
    """Every BOXEDIN_ setting of the README's table and of Settings is set by the chart."""
    declared = {f"BOXEDIN_{name.upper()}" for name in Settings.model_fields}
    missing = (readme_settings() | declared) - reachable(default, production, cluster)
    assert not missing, f"settings the chart cannot set: {sorted(missing)} (add them to values.yaml settings)"


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def test_values_settings_reach_the_configmap(chart: helm.Chart) -> None:
    """Each key of values.settings lands in the ConfigMap as BOXEDIN_<KEY>."""
    changed: dict[str, Any] = {}
    for key, value in chart.values["settings"].items():
        if isinstance(value, bool):
            changed[key] = not value
        elif isinstance(value, int):
            changed[key] = value + 3
        elif isinstance(value, float):
            changed[key] = round(value + 0.5, 2)
        else:
            other = {
                "logLevel": "DEBUG", "engine": "python", "clientAddressHeader": "forwarded",
                "engineRouting": "round_robin",
            }  # fmt: skip
            changed[key] = {**other, "trustedProxies": "10.1.0.0/16"}.get(key, f"{value}x")
    settings = render(chart, {"settings": changed, "extraEnv": {"BOXEDIN_SOMETHING_NEW": 5}}).settings()
    for key, value in changed.items():
        expected = str(value).lower() if isinstance(value, bool) else str(value)
        assert settings[f"BOXEDIN_{snake(key)}"] == expected, key
    assert settings["BOXEDIN_SOMETHING_NEW"] == "5"


def test_a_settings_change_rolls_the_pods(chart: helm.Chart, default: Rendered) -> None:
    changed = render(chart, {"settings": {"updatesKept": 900}})
    for kind, deployment in default.deployments().items():
        before = deployment["spec"]["template"]["metadata"]["annotations"]["checksum/settings"]
        after = changed.deployments()[kind]["spec"]["template"]["metadata"]["annotations"]["checksum/settings"]
        assert before != after, kind


# --- monitoring ----------------------------------------------------------------------------------


def test_rules_and_dashboards_are_shipped_as_written(default: Rendered, production: Rendered) -> None:
    rules_file = FILES / "rules.yaml"
    rules = yaml.safe_load(rules_file.read_text()) if rules_file.exists() else {"groups": []}
    rules_map = default.get("ConfigMap", f"{FULLNAME}-prometheus-rules")
    assert yaml.safe_load(rules_map["data"]["rules.yaml"]) == rules
    assert yaml.safe_load(rules_map["data"]["scrape-config.yaml"])[0]["job_name"] == "boxedin"
    assert production.get("PrometheusRule", FULLNAME)["spec"] == rules
    assert not production.has("ConfigMap", f"{FULLNAME}-prometheus-rules")

    dashboards = {path.name: json.loads(path.read_text()) for path in sorted((FILES / "dashboards").glob("*.json"))}
    for result in (default, production):
        maps = [cm for cm in result.of("ConfigMap") if cm["metadata"]["labels"].get("grafana_dashboard") == "1"]
        if not dashboards:
            assert maps == []
            continue
        (dashboard_map,) = maps
        assert {name: json.loads(text) for name, text in dashboard_map["data"].items()} == dashboards


def test_the_runbook_links_take_the_chart_value(chart: helm.Chart, default: Rendered) -> None:
    """Every alert's runbook_url is monitoring.runbookBaseUrl and its section's anchor, in both
    forms the rules are shipped in; nothing else of the rules changes. The default is the
    file's own: docs/runbooks.md."""
    groups = yaml.safe_load((FILES / "rules.yaml").read_text())["groups"]
    written = [rule for group in groups for rule in group["rules"]]
    assert written and all(rule["annotations"]["runbook_url"].startswith("docs/runbooks.md#") for rule in written)
    base = "https://git.example.com/ops/boxedin/-/blob/main/docs/runbooks.md"
    operator = {"monitoring": {"runbookBaseUrl": base, "prometheusRule": {"enabled": True}}}
    plain = render(chart, {"monitoring": {"runbookBaseUrl": base}})
    shipped = {
        "default": yaml.safe_load(default.get("ConfigMap", f"{FULLNAME}-prometheus-rules")["data"]["rules.yaml"]),
        "configmap": yaml.safe_load(plain.get("ConfigMap", f"{FULLNAME}-prometheus-rules")["data"]["rules.yaml"]),
        "operator": render(chart, operator).get("PrometheusRule", FULLNAME)["spec"],
    }
    for form, rules in shipped.items():
        alerts = [rule for group in rules["groups"] for rule in group["rules"]]
        assert len(alerts) == len(written), form
        expected_base = "docs/runbooks.md" if form == "default" else base
        for rule, as_written in zip(alerts, written, strict=True):
            anchor = as_written["annotations"]["runbook_url"].split("#", 1)[1]
            assert rule["annotations"]["runbook_url"] == f"{expected_base}#{anchor}", (form, rule["alert"])
            rule["annotations"]["runbook_url"] = as_written["annotations"]["runbook_url"]
            assert rule == as_written, (form, rule["alert"])


def test_the_plain_scrape_job_labels_each_target_with_its_namespace(default: Rendered) -> None:
    """The rules keep installations apart by `namespace`: the chart's scrape job for a Prometheus
    without the Operator sets it (ServiceMonitors get it from the Operator)."""
    (job,) = yaml.safe_load(default.get("ConfigMap", f"{FULLNAME}-prometheus-rules")["data"]["scrape-config.yaml"])
    relabel = [r for r in job["relabel_configs"] if r.get("target_label") == "namespace"]
    assert relabel == [{"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"}]
    assert job["kubernetes_sd_configs"][0]["namespaces"]["names"] == [NAMESPACE]


def test_metrics_are_scraped_under_the_jobs_the_rules_name(
    default: Rendered, production: Rendered, cluster: Rendered
) -> None:
    (monitor,) = production.of("ServiceMonitor")
    assert monitor["spec"]["jobLabel"] == "boxedin/job"
    # Every kind's metrics port, the gateway's too (never its public http port).
    assert [endpoint["port"] for endpoint in monitor["spec"]["endpoints"]] == ["metrics"]
    selector = monitor["spec"]["selector"]["matchLabels"]
    scraped = [svc for svc in production.of("Service") if selects(selector, svc["metadata"]["labels"])]
    assert sorted(component(svc) for svc in scraped) == sorted(production.deployments())
    assert f"{FULLNAME}-gateway" not in {svc["metadata"]["name"] for svc in scraped}
    deployments = production.deployments()
    for service in scraped:
        kind = component(service)
        assert service["metadata"]["labels"]["boxedin/job"] == f"boxedin-{kind}"
        (port,) = [port for port in service["spec"]["ports"] if port["name"] == "metrics"]
        assert port["targetPort"] == "metrics"
        assert port["port"] == port_named(deployments[kind], "metrics")
    for kind, deployment in production.deployments().items():
        assert pod_labels(deployment)["boxedin/job"] == f"boxedin-{kind}"
    # The plain scrape config scrapes the port of each pod's prometheus.io/port annotation: its
    # metrics port, where the process serves /metrics (BOXEDIN_<KIND>_METRICS_PORT).
    settings = default.settings()
    for kind, deployment in default.deployments().items():
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/path"] == "/metrics"
        assert annotations["prometheus.io/port"] == settings[f"BOXEDIN_{kind.upper()}_METRICS_PORT"], kind
        assert int(annotations["prometheus.io/port"]) == port_named(deployment, "metrics"), kind
    # The jobs files/rules.yaml names are jobs the chart makes: each kind's, and its Redis
    # exporters' (boxedin-redis, boxedin-redis-broker).
    rules_file = FILES / "rules.yaml"
    named = set(re.findall(r"boxedin-([a-z]+(?:-broker)?)", rules_file.read_text())) if rules_file.exists() else set()
    made = {
        service["metadata"]["labels"]["boxedin/job"].removeprefix("boxedin-")
        for result in (default, cluster)
        for service in result.of("Service")
        if "boxedin/job" in service["metadata"]["labels"]
    }
    assert set(KINDS) | {"redis", "redis-broker"} == made
    assert named <= made


def test_notes_say_how_to_reach_the_gateway(default: Rendered, production: Rendered) -> None:
    assert f"kubectl port-forward --namespace {NAMESPACE} service/{FULLNAME}-gateway 8000:80" in default.notes
    assert "https://play.boxedin.example.com/" in production.notes


def test_notes_say_the_default_image_has_no_registry(default: Rendered, production: Rendered) -> None:
    assert "The image is boxedin:0.1.0, which names no registry" in default.notes
    assert "--set image.repository=REGISTRY/boxedin" in default.notes
    # An image with its registry: nothing to say.
    assert "names no registry" not in production.notes


def test_notes_call_the_ingress_timeouts_idle_timeouts(production: Rendered, cluster: Rendered) -> None:
    for result in (production, cluster):
        notes = " ".join(result.notes.split())
        assert "(3600 s and 3600 s) are idle timeouts" in notes
        assert "pings each one every 10 s" in notes
        assert "up to an hour" not in notes


def test_notes_say_where_the_redis_password_is(default: Rendered, cluster: Rendered, production: Rendered) -> None:
    assert f"password in Secret {FULLNAME}-redis-auth (key redis-password)" in default.notes
    assert f"kubectl exec -it --namespace {NAMESPACE} {FULLNAME}-redis-0 -c redis -- redis-cli" in default.notes
    assert f"Celery's broker the chart's {FULLNAME}-redis-broker" in cluster.notes
    assert "Celery's broker yours (Secret boxedin-redis-broker)" in production.notes
    assert "Celery's queue shares the games' Redis" in default.notes
    assert "Celery's queue shares the games' Redis" not in production.notes


def test_the_ingress_hosts_are_the_public_origins_the_gateway_allows(chart: helm.Chart) -> None:
    """The gateway trusts no Host header for a name (DNS rebinding): the chart names the
    installation's public origins, its Ingress hosts, beside the origins the values list."""
    ingress = {"enabled": True, "hosts": [{"host": "play.example", "paths": [{"path": "/", "pathType": "Prefix"}]}]}
    listed = render(chart, {"ingress": ingress, "settings": {"allowedOrigins": "https://friends.example"}})
    origins = listed.settings()["BOXEDIN_ALLOWED_ORIGINS"].split(",")
    assert origins == ["https://friends.example", "https://play.example", "http://play.example"]
    assert render(chart, {"ingress": {"enabled": False}}).settings()["BOXEDIN_ALLOWED_ORIGINS"] == ""
