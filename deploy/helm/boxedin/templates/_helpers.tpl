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
calls over them (round_robin), so replicas the HPA adds take calls. */}}
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

{{/* Is the chart running a Redis for Celery alone (cluster mode without a broker of yours)? */}}
{{- define "boxedin.ownBroker" -}}
{{- if and (eq .Values.redis.mode "cluster") (not .Values.redis.broker.existingSecret) }}true{{ end }}
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
{{- if and .Values.keda.enabled .Values.services.worker.enabled .Values.services.worker.autoscaling.enabled (eq .Values.redis.mode "external") (not .Values.keda.redisAddress) }}
{{- fail "keda.enabled with redis.mode external needs keda.redisAddress (the broker's host:port, where KEDA reads Celery's queue)" }}
{{- end }}
{{- if and .Values.keda.enabled .Values.services.worker.enabled .Values.services.worker.autoscaling.enabled (eq .Values.redis.mode "cluster") .Values.redis.broker.existingSecret (not .Values.keda.redisAddress) }}
{{- fail "keda.enabled with your own Celery broker (redis.broker.existingSecret) needs keda.redisAddress (the broker's host:port)" }}
{{- end }}
{{- range $kind, $svc := .Values.services }}
{{- if $svc.enabled }}
{{- if le (int $svc.terminationGracePeriodSeconds) (add (int $svc.preStopSleepSeconds) (ceil $svc.shutdownGraceSeconds | int)) }}
{{- fail (printf "services.%s.terminationGracePeriodSeconds (%v) must exceed preStopSleepSeconds + shutdownGraceSeconds (%v + %v): else the pod is killed before it has drained" $kind $svc.terminationGracePeriodSeconds $svc.preStopSleepSeconds $svc.shutdownGraceSeconds) }}
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
