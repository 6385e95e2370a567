{{/*
The chart's Redis: in mode internal the one that holds every game (AOF persistence on a
PersistentVolumeClaim), and a small plain Redis for Celery alone (redis.broker: always in mode
cluster, where a Redis Cluster cannot be Celery's broker, and in any mode with
redis.broker.enabled), unless redis.broker.existingSecret names your own.

Each one: a password from the Secret boxedin.redisAuthSecret (requirepass, written to a file in
/tmp at start: it is in no argument Kubernetes shows); maxmemory from its memory limit with the
policy noeviction (a full Redis refuses writes instead of being killed); a readiness probe that
fails while it loads its AOF or refuses commands, and a lenient liveness probe; a
PodDisruptionBudget; and redis_exporter beside it (redis.exporter) on a metrics Service that the
ServiceMonitor and the scrape config scrape under the job boxedin-redis (boxedin-redis-broker).
*/}}
{{/* Readiness: answers PONG (not LOADING, MISCONF, NOAUTH...) and has loaded its data. */}}
{{- define "boxedin.redisReadyScript" -}}
test "$(redis-cli -p 6379 ping)" = PONG && redis-cli -p 6379 info persistence | grep -q '^loading:0'
{{- end }}
{{/* Liveness and startup: the server answers at all, even "busy loading" or "cannot write". */}}
{{- define "boxedin.redisAliveScript" -}}
case "$(redis-cli -p 6379 ping 2>&1)" in PONG|LOADING*|MISCONF*|BUSY*|MASTERDOWN*) exit 0;; *) exit 1;; esac
{{- end }}
{{- define "boxedin.redisServer" -}}
{{- $root := .root }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $name := include "boxedin.componentName" $ctx }}
{{- $cfg := .config }}
{{- $exporter := $root.Values.redis.exporter }}
{{- $job := printf "boxedin-%s" .component }}
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
  labels:
    {{- include "boxedin.labels" $ctx | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "boxedin.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: redis
      port: 6379
      targetPort: redis
      protocol: TCP
{{- if $exporter.enabled }}
---
# redis_exporter's /metrics, for Prometheus only (headless: names the pod).
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}-metrics
  labels:
    {{- include "boxedin.labels" $ctx | nindent 4 }}
    boxedin/metrics: "true"
    boxedin/job: {{ $job }}
spec:
  type: ClusterIP
  clusterIP: None
  selector:
    {{- include "boxedin.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: metrics
      port: {{ $exporter.port }}
      targetPort: metrics
      protocol: TCP
{{- end }}
{{- if $cfg.pdb.enabled }}
---
# One replica: the budget decides whether a node drain may take it (maxUnavailable 0: the drain
# waits until you move Redis yourself, at a quiet time).
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $name }}
  labels:
    {{- include "boxedin.labels" $ctx | nindent 4 }}
spec:
  {{- if hasKey $cfg.pdb "minAvailable" }}
  minAvailable: {{ $cfg.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $cfg.pdb.maxUnavailable | default 0 }}
  {{- end }}
  # A Redis that is not ready protects nothing: let it be evicted.
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "boxedin.selectorLabels" $ctx | nindent 6 }}
{{- end }}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ $name }}
  labels:
    {{- include "boxedin.labels" $ctx | nindent 4 }}
spec:
  replicas: 1
  serviceName: {{ $name }}
  selector:
    matchLabels:
      {{- include "boxedin.selectorLabels" $ctx | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "boxedin.selectorLabels" $ctx | nindent 8 }}
        {{- if $exporter.enabled }}
        # The Prometheus job of its exporter's metrics (the plain scrape config reads it).
        boxedin/job: {{ $job }}
        {{- end }}
      annotations:
        {{- if not $root.Values.redis.auth.existingSecret }}
        # A new password restarts Redis with it (its clients roll with checksum/secrets).
        checksum/redis-auth: {{ include "boxedin.redisPasswordValue" $root | sha256sum }}
        {{- end }}
        {{- if and $exporter.enabled $root.Values.monitoring.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $exporter.port | quote }}
        prometheus.io/path: /metrics
        {{- end }}
    spec:
      automountServiceAccountToken: false
      enableServiceLinks: false
      serviceAccountName: {{ include "boxedin.serviceAccountName" $root }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      # The redis image's user.
      securityContext:
        runAsNonRoot: true
        runAsUser: 999
        runAsGroup: 999
        fsGroup: 999
        seccompProfile:
          type: RuntimeDefault
      terminationGracePeriodSeconds: 30
      {{- with $cfg.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $cfg.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $cfg.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: redis
          image: {{ printf "%s:%s" $root.Values.redis.image.repository $root.Values.redis.image.tag | quote }}
          imagePullPolicy: {{ $root.Values.redis.image.pullPolicy }}
          # The password goes into a config file (mode 600 in /tmp) that redis-server reads first;
          # the arguments below follow it.
          command:
            - sh
            - -c
            - umask 077 && printf 'requirepass "%s"\n' "$REDISCLI_AUTH" > /tmp/redis-auth.conf && exec redis-server /tmp/redis-auth.conf "$@"
            - redis-server
          args:
            - --port
            - "6379"
            - --dir
            - /data
            # On (Redis's default) and moot: every client must give the password.
            - --protected-mode
            - "yes"
            # Nothing is ever evicted (games least of all): a full Redis refuses writes instead,
            # at maxmemory, below the container's memory limit.
            - --maxmemory-policy
            - noeviction
            - --maxmemory
            - {{ include "boxedin.redisMaxmemory" (dict "config" $cfg "path" .path) | quote }}
            {{- if .persistent }}
            - --appendonly
            - "yes"
            - --appendfsync
            - {{ $cfg.appendfsync | quote }}
            {{- else }}
            # Celery's tasks live for seconds: nothing to keep.
            - --appendonly
            - "no"
            - --save
            - ""
            {{- end }}
          env:
            # The password: redis-server's requirepass, and redis-cli's (the probes) by this name.
            {{- include "boxedin.redisPasswordEnv" (dict "root" $root "name" "REDISCLI_AUTH") | nindent 12 }}
          ports:
            - name: redis
              containerPort: 6379
              protocol: TCP
          # Up once the server answers at all (loading a large AOF answers LOADING for a while).
          startupProbe:
            exec:
              command: ["sh", "-c", {{ include "boxedin.redisAliveScript" . | quote }}]
            periodSeconds: 2
            timeoutSeconds: 2
            failureThreshold: 60
          # Ready only when it answers PONG and has loaded its data: not while it loads the AOF,
          # refuses writes (MISCONF: its disk failed) or refuses the password.
          readinessProbe:
            exec:
              command: ["sh", "-c", {{ include "boxedin.redisReadyScript" . | quote }}]
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          # Lenient: restarted only when it has not answered at all for a minute and a half.
          livenessProbe:
            exec:
              command: ["sh", "-c", {{ include "boxedin.redisAliveScript" . | quote }}]
            periodSeconds: 15
            timeoutSeconds: 5
            failureThreshold: 6
          resources:
            {{- toYaml $cfg.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: data
              mountPath: /data
            - name: tmp
              mountPath: /tmp
        {{- if $exporter.enabled }}
        # The standard Prometheus exporter of Redis: memory, clients, commands, latency, AOF.
        - name: exporter
          image: {{ printf "%s:%s" $exporter.image.repository $exporter.image.tag | quote }}
          imagePullPolicy: {{ $exporter.image.pullPolicy }}
          env:
            - name: REDIS_ADDR
              value: redis://localhost:6379
            {{- include "boxedin.redisPasswordEnv" (dict "root" $root "name" "REDIS_PASSWORD") | nindent 12 }}
            - name: REDIS_EXPORTER_WEB_LISTEN_ADDRESS
              value: {{ printf "0.0.0.0:%v" $exporter.port | quote }}
          ports:
            - name: metrics
              containerPort: {{ $exporter.port }}
              protocol: TCP
          readinessProbe:
            httpGet: {path: /health, port: metrics}
            periodSeconds: 10
            timeoutSeconds: 3
          livenessProbe:
            httpGet: {path: /health, port: metrics}
            periodSeconds: 15
            timeoutSeconds: 5
            failureThreshold: 4
          resources:
            {{- toYaml $exporter.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
        {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpSizeLimit }}
        {{- if not (and .persistent $cfg.persistence.enabled) }}
        - name: data
          emptyDir: {}
        {{- end }}
  {{- if and .persistent $cfg.persistence.enabled }}
  volumeClaimTemplates:
    - metadata:
        name: data
        labels:
          {{- include "boxedin.selectorLabels" $ctx | nindent 10 }}
      spec:
        accessModes:
          {{- toYaml $cfg.persistence.accessModes | nindent 10 }}
        {{- with $cfg.persistence.storageClass }}
        storageClassName: {{ . | quote }}
        {{- end }}
        resources:
          requests:
            storage: {{ $cfg.persistence.size }}
  {{- end }}
{{- end }}
