{{/*
The chart's Redis: in mode internal the one that holds every game (AOF persistence on a
PersistentVolumeClaim), in mode cluster a small plain Redis for Celery alone (a Redis Cluster
cannot be Celery's broker), unless redis.broker.existingSecret names your own.
*/}}
{{- define "boxedin.redisServer" -}}
{{- $root := .root }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $name := include "boxedin.componentName" $ctx }}
{{- $cfg := .config }}
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
          command: ["redis-server"]
          args:
            - --port
            - "6379"
            - --dir
            - /data
            - --protected-mode
            - "no"
            # Nothing is ever evicted (games least of all): a full Redis refuses writes instead.
            - --maxmemory-policy
            - noeviction
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
            {{- with $cfg.maxmemory }}
            - --maxmemory
            - {{ . | quote }}
            {{- end }}
          ports:
            - name: redis
              containerPort: 6379
              protocol: TCP
          startupProbe:
            exec:
              command: ["redis-cli", "-p", "6379", "ping"]
            periodSeconds: 2
            timeoutSeconds: 2
            # Loading a large AOF takes a while.
            failureThreshold: 150
          readinessProbe:
            exec:
              command: ["redis-cli", "-p", "6379", "ping"]
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          livenessProbe:
            tcpSocket:
              port: redis
            periodSeconds: 10
            timeoutSeconds: 3
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
