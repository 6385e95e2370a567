"""The chart behind a proxy (issue 28): the gateways trust the Ingress controller's pods for the
client address, the Ingress passes a draining gateway's handshakes to another, a LoadBalancer
can keep the client's address, and a gateway's grace covers its drain. The nginx the tests put
in front of two gateways (boxedin.tools.nginx) speaks the Ingress's configuration."""

from __future__ import annotations

import ipaddress

import helm_python as helm
import pytest

from boxedin.common.settings import Settings
from boxedin.tools.nginx import WEBSOCKET_LOCATION

from chart_render import FULLNAME, RELEASE, Rendered, render


def test_the_gateways_trust_the_private_ranges_for_the_client_address(rendered: Rendered) -> None:
    settings = rendered.settings()
    trusted = Settings(trusted_proxies=settings["BOXEDIN_TRUSTED_PROXIES"]).trusted_proxies
    networks = [ipaddress.ip_network(item.strip()) for item in trusted.split(",")]
    # Where pod networks (and so the Ingress controller's pods) are: and nothing public.
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"} <= {str(n) for n in networks}
    assert all(network.is_private or network.subnet_of(ipaddress.ip_network("100.64.0.0/10")) for network in networks)  # type: ignore[arg-type]
    assert settings["BOXEDIN_CLIENT_ADDRESS_HEADER"] == "x-forwarded-for"


def test_the_trusted_proxies_are_the_operators_to_narrow(chart: helm.Chart) -> None:
    narrowed = render(chart, {"settings": {"trustedProxies": "10.244.0.0/16", "clientAddressHeader": "forwarded"}})
    assert narrowed.settings()["BOXEDIN_TRUSTED_PROXIES"] == "10.244.0.0/16"
    assert narrowed.settings()["BOXEDIN_CLIENT_ADDRESS_HEADER"] == "forwarded"
    assert render(chart, {"settings": {"trustedProxies": ""}}).settings()["BOXEDIN_TRUSTED_PROXIES"] == ""


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"settings": {"clientAddressHeader": "x-real-ip"}}, "clientAddressHeader"),
        ({"settings": {"trustedProxies": "the ingress"}}, "trustedProxies"),
        ({"settings": {"drainSpreadSeconds": -1}}, "drainSpreadSeconds"),
        ({"services": {"gateway": {"service": {"externalTrafficPolicy": "Nearby"}}}}, "externalTrafficPolicy"),
    ],
)
def test_the_schema_refuses_proxy_values_that_cannot_work(
    chart: helm.Chart, values: dict[str, object], message: str
) -> None:
    with pytest.raises(helm.HelmValuesError) as refused:
        chart.render(values=values, name=RELEASE)
    assert message in str(refused.value)


def test_the_ingress_passes_a_draining_gateways_handshakes_to_another(chart: helm.Chart) -> None:
    ingress = render(chart, {"ingress": {"enabled": True}}).get("Ingress", FULLNAME)
    annotations = ingress["metadata"]["annotations"]
    assert "http_503" in annotations["nginx.ingress.kubernetes.io/proxy-next-upstream"].split()
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-next-upstream-tries"]) >= 2
    # The tests' nginx is configured as this Ingress is.
    assert "proxy_next_upstream error timeout http_502 http_503;" in WEBSOCKET_LOCATION
    for name in ("read", "send"):
        seconds = annotations[f"nginx.ingress.kubernetes.io/proxy-{name}-timeout"]
        assert f"proxy_{name}_timeout {seconds}s;" in WEBSOCKET_LOCATION
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in WEBSOCKET_LOCATION


def gateway_service(result: Rendered) -> dict[str, object]:
    return result.get("Service", f"{FULLNAME}-gateway")


def test_a_load_balancer_can_keep_the_clients_own_address(chart: helm.Chart, default: Rendered) -> None:
    assert "externalTrafficPolicy" not in gateway_service(default)["spec"]  # type: ignore[operator]
    local = {"type": "LoadBalancer", "externalTrafficPolicy": "Local"}
    spec = gateway_service(render(chart, {"services": {"gateway": {"service": local}}}))["spec"]
    assert spec["externalTrafficPolicy"] == "Local"  # type: ignore[index]
    # A ClusterIP Service has no external traffic to keep it for.
    cluster_ip = {"type": "ClusterIP", "externalTrafficPolicy": "Local"}
    spec = gateway_service(render(chart, {"services": {"gateway": {"service": cluster_ip}}}))["spec"]
    assert "externalTrafficPolicy" not in spec  # type: ignore[operator]


def test_a_gateway_grace_shorter_than_its_drain_is_refused(chart: helm.Chart) -> None:
    values = {"settings": {"drainSpreadSeconds": 30}}
    with pytest.raises(helm.HelmRenderError) as refused:
        chart.render(values=values, name=RELEASE)
    assert "services.gateway.terminationGracePeriodSeconds (40) must exceed" in str(refused.value)
    assert "drainSpreadSeconds + 2" in str(refused.value)
    longer = {**values, "services": {"gateway": {"terminationGracePeriodSeconds": 60}}}
    assert render(chart, longer).settings()["BOXEDIN_DRAIN_SPREAD_SECONDS"] == "30"


def test_the_notes_say_whom_the_gateways_trust_and_what_a_load_balancer_needs(chart: helm.Chart) -> None:
    notes = render(chart, {}).notes
    assert "settings.trustedProxies: 10.0.0.0/8" in notes and "Narrow it" in notes
    balancer = render(chart, {"services": {"gateway": {"service": {"type": "LoadBalancer"}}}}).notes
    assert "externalTrafficPolicy: Local" in balancer
    local = {"type": "LoadBalancer", "externalTrafficPolicy": "Local"}
    assert "externalTrafficPolicy Cluster" not in render(chart, {"services": {"gateway": {"service": local}}}).notes
    assert "none: every client is its TCP peer" in render(chart, {"settings": {"trustedProxies": ""}}).notes
