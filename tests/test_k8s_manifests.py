"""``deploy/k8s/``: valid for a pinned Kubernetes, offline, and consistent with the app they run.

``kubernetes-validate`` ships the OpenAPI schemas of each Kubernetes release in the package, so
the check needs no cluster and no network. Strict: a misspelt field is an error, not ignored.
The consistency checks read the app itself: the probed paths are its routes, the env names are
its settings, the port is the one the image serves on.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from starlette.routing import Route

from symguard.service.app import create_app
from symguard.service.server import serve
from symguard.service.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES = "1.33.0"  # the pinned release the manifests are checked against
FILES = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def _docs() -> list[dict[str, Any]]:
    return [d for p in FILES for d in yaml.safe_load_all(p.read_text()) if d]


def _one(kind: str, name: str) -> dict[str, Any]:
    [doc] = [d for d in _docs() if d["kind"] == kind and d["metadata"]["name"] == name]
    return doc


def _container(deployment: str) -> dict[str, Any]:
    [c] = _one("Deployment", deployment)["spec"]["template"]["spec"]["containers"]
    return c  # type: ignore[no-any-return]


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_each_manifest_is_valid_for_the_pinned_kubernetes(path: Path) -> None:
    for doc in yaml.safe_load_all(path.read_text()):
        kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def test_the_validator_refuses_a_misspelt_field() -> None:
    """The check above checks something: a typo a cluster would reject is caught offline."""
    doc = _one("Deployment", "symguard-api")
    bad = {**doc, "spec": {**doc["spec"], "replica": 2}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, KUBERNETES, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    kust = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    assert sorted(kust["resources"]) == [p.name for p in FILES]
    assert {i["name"] for i in kust["images"]} == {_container("symguard-api")["image"]}


def test_the_api_serves_on_the_port_the_image_exposes() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    exposed = int(re.search(r"^EXPOSE (\d+)", dockerfile, re.MULTILINE)[1])  # type: ignore[index]
    assert f"--port {exposed}" in dockerfile
    [port] = _container("symguard-api")["ports"]
    assert port["containerPort"] == exposed
    [svc_port] = _one("Service", "symguard-api")["spec"]["ports"]
    assert svc_port["targetPort"] == port["name"]


def test_the_probes_ask_routes_the_app_has() -> None:
    app = create_app(Settings())  # nothing starts until the lifespan runs
    gets = {r.path for r in app.routes if isinstance(r, Route) and "GET" in (r.methods or ())}
    c = _container("symguard-api")
    probes = {k: c[k]["httpGet"] for k in ("startupProbe", "livenessProbe", "readinessProbe")}
    for probe in probes.values():
        assert probe["path"] in gets and probe["port"] == c["ports"][0]["name"]
    assert probes["livenessProbe"]["path"] == "/healthz"
    assert probes["readinessProbe"]["path"] == "/readyz"  # 503 while the workers boot: no traffic yet


def test_every_env_var_is_a_setting_and_the_redis_url_names_the_redis_service() -> None:
    prefix = Settings.model_config["env_prefix"]
    fields = {f"{prefix}{name}".upper() for name in Settings.model_fields}
    env = {e["name"]: e for e in _container("symguard-api")["env"]}
    assert set(env) <= fields, set(env) - fields
    assert {"SYMGUARD_REDIS_URL", "SYMGUARD_REDIS_PASSWORD", "SYMGUARD_WORKERS"} <= set(env)
    Settings(workers=int(env["SYMGUARD_WORKERS"]["value"]), redis_url=env["SYMGUARD_REDIS_URL"]["value"])
    m = re.fullmatch(r"redis://([a-z0-9-]+):(\d+)/\d+", env["SYMGUARD_REDIS_URL"]["value"])
    assert m is not None
    [redis_port] = _one("Service", m[1])["spec"]["ports"]
    assert redis_port["port"] == int(m[2])


def test_redis_takes_its_password_from_the_secret_the_api_reads() -> None:
    api = {e["name"]: e for e in _container("symguard-api")["env"]}
    redis = _container("symguard-redis")
    ref = api["SYMGUARD_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert not ref.get("optional")
    by_name = {e["name"]: e for e in redis["env"]}
    assert "$(REDIS_PASSWORD)" in redis["args"][redis["args"].index("--requirepass") + 1]
    assert by_name["REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"] == ref
    assert not any(d["kind"] == "Secret" for d in _docs())  # a password is never in the repository


def test_only_the_api_pods_reach_redis() -> None:
    api_labels = _one("Deployment", "symguard-api")["spec"]["template"]["metadata"]["labels"]
    redis_labels = _one("Deployment", "symguard-redis")["spec"]["template"]["metadata"]["labels"]
    policy = _one("NetworkPolicy", "symguard-redis")["spec"]
    assert _matches(policy["podSelector"]["matchLabels"], redis_labels)
    assert policy["policyTypes"] == ["Ingress"]
    [rule] = policy["ingress"]
    [peer] = rule["from"]
    assert set(peer) == {"podSelector"} and _matches(peer["podSelector"]["matchLabels"], api_labels)
    assert not _matches(peer["podSelector"]["matchLabels"], redis_labels)
    assert [p["port"] for p in rule["ports"]] == [6379]
    assert _one("Service", "symguard-redis")["spec"]["type"] == "ClusterIP"


def test_selectors_autoscaler_and_budget_point_at_the_api() -> None:
    dep = _one("Deployment", "symguard-api")
    labels = dep["spec"]["template"]["metadata"]["labels"]
    assert _matches(dep["spec"]["selector"]["matchLabels"], labels)
    assert _matches(_one("Service", "symguard-api")["spec"]["selector"], labels)
    assert _matches(_one("PodDisruptionBudget", "symguard-api")["spec"]["selector"]["matchLabels"], labels)
    hpa = _one("HorizontalPodAutoscaler", "symguard-api")["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "symguard-api"}
    assert hpa["minReplicas"] >= 2  # with maxUnavailable 1, a drain always leaves one pod serving
    assert _container("symguard-api")["resources"]["requests"]["cpu"]  # the HPA's utilization needs it
    redis = _one("Deployment", "symguard-redis")
    assert _matches(_one("Service", "symguard-redis")["spec"]["selector"],
                    redis["spec"]["template"]["metadata"]["labels"])


def test_pods_get_longer_to_stop_than_the_server_lets_requests_finish() -> None:
    graceful_s = serve.__kwdefaults__["graceful_s"]
    spec = _one("Deployment", "symguard-api")["spec"]["template"]["spec"]
    pre_stop = int(spec["containers"][0]["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert spec["terminationGracePeriodSeconds"] > graceful_s + pre_stop
