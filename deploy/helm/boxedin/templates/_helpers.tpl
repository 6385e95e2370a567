{{/*
The chart's name, and the prefix of every object's name (RELEASE-boxedin, at most 63
characters with room for a kind's suffix left to the caller).
*/}}
{{- define "boxedin.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "boxedin.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "boxedin.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels of every object. Call with (dict "root" $ "component" "engine").
*/}}
{{- define "boxedin.labels" -}}
helm.sh/chart: {{ include "boxedin.chart" .root }}
{{ include "boxedin.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Values.image.tag | default .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: boxedin
{{- end }}

{{/*
The labels that select a component's pods. Call with (dict "root" $ "component" "engine").
*/}}
{{- define "boxedin.selectorLabels" -}}
app.kubernetes.io/name: {{ include "boxedin.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{/* A component's objects' name: RELEASE-boxedin-KIND. */}}
{{- define "boxedin.componentName" -}}
{{- printf "%s-%s" (include "boxedin.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "boxedin.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "boxedin.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "boxedin.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
What each process kind is: "http" (the gateway), "grpc" (a gRPC service with the standard
health service) or "worker" (Celery: no port but its metrics).
*/}}
{{- define "boxedin.protocol" -}}
{{- if eq . "gateway" }}http{{ else if eq . "worker" }}worker{{ else }}grpc{{ end }}
{{- end }}

{{/* Where a gRPC kind is reached inside the cluster: its Service's name and port. */}}
{{- define "boxedin.grpcAddress" -}}
{{- $svc := index .root.Values.services .component }}
{{- /* dns:/// with a headless Service: gRPC clients resolve every ready pod and spread their
calls over them (round_robin; the engine's callers send each game's calls to the pod of its
partition, boxedin.common.engine_router), so replicas the HPA adds take calls. */}}
{{- printf "dns:///%s:%v" (include "boxedin.componentName" .) $svc.port }}
{{- end }}

{{/* The Secret holding the Redis URL (modes external and cluster). */}}
{{- define "boxedin.redisUrlSecret" -}}
{{- default (printf "%s-redis-url" (include "boxedin.fullname" .)) .Values.redis.existingSecret }}
{{- end }}

{{/* The Secret holding the ops token, or "" when there is none. */}}
{{- define "boxedin.opsTokenSecret" -}}
{{- if .Values.opsToken.existingSecret }}
{{- .Values.opsToken.existingSecret }}
{{- else if .Values.opsToken.value }}
{{- printf "%s-ops-token" (include "boxedin.fullname" .) }}
{{- end }}
{{- end }}

{{/* The Secret holding the services' shared secret (BOXEDIN_SERVICE_SECRET): yours, or the chart's. */}}
{{- define "boxedin.serviceSecretName" -}}
{{- default (printf "%s-service-secret" (include "boxedin.fullname" .)) .Values.serviceSecret.existingSecret }}
{{- end }}

{{/*
The value of the Secret the chart makes for the services' shared secret: serviceSecret.value,
else the one the installed Secret already holds (so an upgrade keeps it and the services keep
taking each other's calls), else a new random one. `lookup` finds nothing under `helm template`
or --dry-run: a new value each time there. Chosen once per render (kept in .Values) so the
pods' checksum/secrets is the checksum of the Secret actually made.
*/}}
{{- define "boxedin.serviceSecretValue" -}}
{{- if not (hasKey .Values.serviceSecret "chosen") }}
{{- $value := .Values.serviceSecret.value }}
{{- if not $value }}
{{- $installed := lookup "v1" "Secret" .Release.Namespace (include "boxedin.serviceSecretName" .) }}
{{- $value = dig "data" .Values.serviceSecret.key "" $installed | b64dec }}
{{- end }}
{{- $_ := set .Values.serviceSecret "chosen" (default (randAlphaNum 48) $value) }}
{{- end }}
{{- .Values.serviceSecret.chosen }}
{{- end }}

{{/* The chart's own Redis (internal mode) and Celery broker (cluster mode) Services. */}}
{{- define "boxedin.redisHost" -}}
{{- printf "%s-redis" (include "boxedin.fullname" .) }}
{{- end }}
{{- define "boxedin.brokerHost" -}}
{{- printf "%s-redis-broker" (include "boxedin.fullname" .) }}
{{- end }}

{{/*
Is the chart running a Redis for Celery alone? In cluster mode always (a Redis Cluster cannot be
Celery's broker), and in any mode with redis.broker.enabled; never when redis.broker.existingSecret
names a broker of yours.
*/}}
{{- define "boxedin.ownBroker" -}}
{{- if and (or (eq .Values.redis.mode "cluster") .Values.redis.broker.enabled) (not .Values.redis.broker.existingSecret) }}true{{ end }}
{{- end }}

{{/* Is the chart running any Redis (the games' in internal mode, or Celery's broker)? */}}
{{- define "boxedin.ownRedis" -}}
{{- if or (eq .Values.redis.mode "internal") (include "boxedin.ownBroker" .) }}true{{ end }}
{{- end }}

{{/* The Secret holding the password of the chart's Redis servers: yours, or the chart's. */}}
{{- define "boxedin.redisAuthSecret" -}}
{{- default (printf "%s-redis-auth" (include "boxedin.fullname" .)) .Values.redis.auth.existingSecret }}
{{- end }}

{{/*
The password the chart's Secret holds for its Redis servers: redis.auth.password, else the one
the installed Secret already holds (an upgrade keeps it: Redis and its clients keep agreeing),
else a new random one; chosen once per render, as boxedin.serviceSecretValue.
*/}}
{{- define "boxedin.redisPasswordValue" -}}
{{- if not (hasKey .Values.redis.auth "chosen") }}
{{- $value := .Values.redis.auth.password }}
{{- if not $value }}
{{- $installed := lookup "v1" "Secret" .Release.Namespace (include "boxedin.redisAuthSecret" .) }}
{{- $value = dig "data" .Values.redis.auth.key "" $installed | b64dec }}
{{- end }}
{{- $_ := set .Values.redis.auth "chosen" (default (randAlphaNum 32) $value) }}
{{- end }}
{{- .Values.redis.auth.chosen }}
{{- end }}

{{/*
The environment variable holding the chart's Redis password, from its Secret, for a container
that builds a URL with $(BOXEDIN_CHART_REDIS_PASSWORD) (Kubernetes expands it: the password is in
no ConfigMap and in no rendered value). Call with the root and the variable's name.
*/}}
{{- define "boxedin.redisPasswordEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "boxedin.redisAuthSecret" .root }}
      key: {{ .root.Values.redis.auth.key }}
{{- end }}

{{/*
A Kubernetes memory quantity (512Mi, 2Gi, 1G, 1.5Gi, 1073741824) in bytes, as an integer; fails
on a form it cannot read. Call with (dict "quantity" Q "what" "the value's path").
*/}}
{{- define "boxedin.memoryBytes" -}}
{{- $q := toString .quantity }}
{{- $units := dict "" 1 "k" 1000 "K" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 }}
{{- $number := regexFind `^[0-9]+(\.[0-9]+)?` $q }}
{{- $unit := trimPrefix $number $q }}
{{- if or (not $number) (not (hasKey $units $unit)) }}
{{- fail (printf "%s: cannot read the memory quantity %q (use Ki, Mi, Gi, Ti, k, M, G or T), or give maxmemory" .what $q) }}
{{- end }}
{{- if contains "." $number }}
{{- mulf (float64 $number) (index $units $unit) | floor | int64 }}
{{- else }}
{{- mul (int64 $number) (index $units $unit) }}
{{- end }}
{{- end }}

{{/*
The maxmemory of one of the chart's Redis servers (config: redis.internal or redis.broker):
its maxmemory when given, else maxmemoryPercent of its container's memory limit, in bytes, so
that a full Redis refuses writes (noeviction) before the kernel kills it.
*/}}
{{- define "boxedin.redisMaxmemory" -}}
{{- $cfg := .config }}
{{- if $cfg.maxmemory }}
{{- $cfg.maxmemory }}
{{- else }}
{{- $limit := dig "limits" "memory" "" $cfg.resources }}
{{- if not $limit }}
{{- fail (printf "redis.%s needs resources.limits.memory (maxmemory is %v%% of it) or maxmemory: without either a full Redis is killed by the kernel instead of refusing writes" .path $cfg.maxmemoryPercent) }}
{{- end }}
{{- $bytes := include "boxedin.memoryBytes" (dict "quantity" $limit "what" (printf "redis.%s.resources.limits.memory" .path)) | int64 }}
{{- div (mul $bytes (int64 $cfg.maxmemoryPercent)) 100 }}
{{- end }}
{{- end }}

{{/* Celery's queue list in Redis (boxedin.common.keys.celery_queue). */}}
{{- define "boxedin.celeryQueue" -}}
{{- printf "%scelery:celery" .Values.settings.keyPrefix }}
{{- end }}

{{/*
Checks of values that a JSON schema cannot express; each fails the render with a message.
*/}}
{{- define "boxedin.validate" -}}
{{- if and .Values.production (not (include "boxedin.opsTokenSecret" .)) }}
{{- fail "production: true needs an ops token (opsToken.existingSecret, or opsToken.value): the gateway refuses to start without one" }}
{{- end }}
{{- if and .Values.serviceSecret.value (lt (len .Values.serviceSecret.value) 16) }}
{{- fail "serviceSecret.value must be 16 characters or more (the services refuse a shorter secret); or leave it empty and the chart makes one" }}
{{- end }}
{{- if and .Values.serviceSecret.existingSecret .Values.serviceSecret.value }}
{{- fail "serviceSecret: give existingSecret or value, not both" }}
{{- end }}
{{- if and (ne .Values.redis.mode "internal") (not .Values.redis.existingSecret) (not .Values.redis.url) }}
{{- fail (printf "redis.mode %s needs the Redis URL: redis.existingSecret (a Secret with the key %s) or redis.url" .Values.redis.mode .Values.redis.key) }}
{{- end }}
{{- if and .Values.keda.enabled .Values.services.worker.enabled .Values.services.worker.autoscaling.enabled (eq .Values.redis.mode "external") (not .Values.redis.broker.existingSecret) (not (include "boxedin.ownBroker" .)) (not .Values.keda.redisAddress) }}
{{- fail "keda.enabled with redis.mode external needs keda.redisAddress (the broker's host:port, where KEDA reads Celery's queue)" }}
{{- end }}
{{- if and .Values.keda.enabled .Values.services.worker.enabled .Values.services.worker.autoscaling.enabled .Values.redis.broker.existingSecret (not .Values.keda.redisAddress) }}
{{- fail "keda.enabled with your own Celery broker (redis.broker.existingSecret) needs keda.redisAddress (the broker's host:port)" }}
{{- end }}
{{- if and .Values.redis.auth.existingSecret .Values.redis.auth.password }}
{{- fail "redis.auth: give existingSecret or password, not both" }}
{{- end }}
{{- if and .Values.redis.broker.enabled .Values.redis.broker.existingSecret }}
{{- fail "redis.broker: give enabled (the chart runs Celery's broker) or existingSecret (yours), not both" }}
{{- end }}
{{- if and .Values.redis.exporter.enabled (eq (int .Values.redis.exporter.port) 6379) }}
{{- fail "redis.exporter.port must differ from Redis's port 6379" }}
{{- end }}
{{- range $kind, $svc := .Values.services }}
{{- if $svc.enabled }}
{{- if le (int $svc.terminationGracePeriodSeconds) (add (int $svc.preStopSleepSeconds) (ceil $svc.shutdownGraceSeconds | int)) }}
{{- fail (printf "services.%s.terminationGracePeriodSeconds (%v) must exceed preStopSleepSeconds + shutdownGraceSeconds (%v + %v): else the pod is killed before it has drained" $kind $svc.terminationGracePeriodSeconds $svc.preStopSleepSeconds $svc.shutdownGraceSeconds) }}
{{- end }}
{{- /* The gateway drains its websockets first: the spread, and 2 s for the last to reconnect. */}}
{{- $drain := add (ceil $.Values.settings.drainSpreadSeconds | int) 2 }}
{{- if and (eq $kind "gateway") (le (int $svc.terminationGracePeriodSeconds) (add (int $svc.preStopSleepSeconds) $drain (ceil $svc.shutdownGraceSeconds | int))) }}
{{- fail (printf "services.gateway.terminationGracePeriodSeconds (%v) must exceed preStopSleepSeconds + settings.drainSpreadSeconds + 2 + shutdownGraceSeconds (%v + %v + 2 + %v): else the pod is killed before its clients have moved" $svc.terminationGracePeriodSeconds $svc.preStopSleepSeconds $.Values.settings.drainSpreadSeconds $svc.shutdownGraceSeconds) }}
{{- end }}
{{- if and $svc.port $svc.metricsPort (eq (int $svc.port) (int $svc.metricsPort)) }}
{{- fail (printf "services.%s.metricsPort (%v) must differ from its port: the process serves its /metrics apart from it" $kind $svc.metricsPort) }}
{{- end }}
{{- if and $svc.autoscaling.enabled (gt (int $svc.autoscaling.minReplicas) (int $svc.autoscaling.maxReplicas)) }}
{{- fail (printf "services.%s.autoscaling.minReplicas (%v) is more than maxReplicas (%v)" $kind $svc.autoscaling.minReplicas $svc.autoscaling.maxReplicas) }}
{{- end }}
{{- end }}
{{- end }}
{{- if not .Values.services.gateway.enabled }}
{{- fail "services.gateway.enabled: false leaves nothing to play through: the gateway is required" }}
{{- end }}
{{- end }}
