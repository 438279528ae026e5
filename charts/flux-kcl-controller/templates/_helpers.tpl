{{/* The image of a binary: <registry>/<binary>:<tag or appVersion>. */}}
{{- define "fkc.image" -}}
{{ .root.Values.image.registry }}/{{ .name }}:{{ .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- end -}}

{{/* The NATS URL the watcher and the applier use: nats.url, the bundled server's Service, or
every server of the bundled cluster (comma-separated: a client fails over between them). */}}
{{- define "fkc.natsURL" -}}
{{- if .Values.nats.url }}
{{- .Values.nats.url }}
{{- else if .Values.nats.cluster.enabled }}
{{- $urls := list }}
{{- range $i := until (include "fkc.natsClusterReplicas" . | int) }}
{{- $urls = append $urls (printf "nats://kcl-nats-%d.kcl-nats-headless.%s.svc:4222" $i $.Release.Namespace) }}
{{- end }}
{{- join "," $urls }}
{{- else }}
{{- printf "nats://kcl-nats.%s.svc:4222" .Release.Namespace }}
{{- end }}
{{- end -}}

{{/* The servers of the bundled NATS cluster (nats.cluster.replicas): 3 or 5, so that a quorum
survives one (two) of them down; JetStream replicates the streams on 3 or 5 servers at most. */}}
{{- define "fkc.natsClusterReplicas" -}}
{{- $n := .Values.nats.cluster.replicas | int }}
{{- if not (has $n (list 3 5)) }}
{{- fail (printf "nats.cluster.replicas must be 3 or 5, got %v" .Values.nats.cluster.replicas) }}
{{- end }}
{{- if .Values.nats.url }}
{{- fail "nats.cluster.enabled installs a NATS cluster; with nats.url the chart installs none: set one of them" }}
{{- end }}
{{- $n }}
{{- end -}}

{{/* The replicas of the reconcile-request stream and the applier's key-value buckets: every
server of the bundled cluster holds a copy; 0 leaves the services' default (one, or extraArgs). */}}
{{- define "fkc.natsStreamReplicas" -}}
{{- if and .Values.nats.cluster.enabled (not .Values.allInOne.enabled) }}
{{- include "fkc.natsClusterReplicas" . }}
{{- else }}0{{ end }}
{{- end -}}

{{/* Labels on every object of the release. */}}
{{- define "fkc.labels" -}}
app.kubernetes.io/part-of: flux-kcl-controller
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Pod-level hardening shared by every pod. */}}
{{- define "fkc.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile: {type: RuntimeDefault}
{{- end -}}

{{/* Container-level hardening shared by every container. */}}
{{- define "fkc.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities: {drop: ["ALL"]}
{{- end -}}

{{/* GOMEMLIMIT follows the container's memory limit, so the GC works before the OOM killer. */}}
{{- define "fkc.goEnv" -}}
- name: GOMEMLIMIT
  valueFrom:
    resourceFieldRef: {resource: limits.memory}
{{- end -}}

{{/* Scheduling: the service's own value, else the chart-wide default. */}}
{{- define "fkc.scheduling" -}}
{{- with (.svc.nodeSelector | default .root.Values.nodeSelector) }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.svc.affinity | default .root.Values.affinity) }}
affinity: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (.svc.tolerations | default .root.Values.tolerations) }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Probes on the health endpoint every service serves (/healthz, /readyz on :9440). */}}
{{- define "fkc.probes" -}}
livenessProbe:
  httpGet: {path: /healthz, port: healthz}
  periodSeconds: 20
readinessProbe:
  httpGet: {path: /readyz, port: healthz}
  periodSeconds: 10
{{- end -}}

{{/* NATS subjects each identity may publish to; test/install compares them with
internal/natsconn (WatcherPermissions, ApplierPermissions with drift requests). */}}
{{- define "fkc.natsWatcherPublish" -}}
["fkc.v1.reconcile.>", "$JS.API.STREAM.CREATE.FKC_RECONCILE_V1", "$JS.API.STREAM.UPDATE.FKC_RECONCILE_V1", "$JS.API.STREAM.INFO.FKC_RECONCILE_V1"]
{{- end -}}
{{- define "fkc.natsApplierPublish" -}}
["fkc.v1.reconcile.>", "$JS.API.STREAM.CREATE.FKC_RECONCILE_V1", "$JS.API.STREAM.UPDATE.FKC_RECONCILE_V1", "$JS.API.STREAM.INFO.FKC_RECONCILE_V1", "$JS.API.CONSUMER.CREATE.FKC_RECONCILE_V1.applier", "$JS.API.CONSUMER.CREATE.FKC_RECONCILE_V1.applier.>", "$JS.API.CONSUMER.DURABLE.CREATE.FKC_RECONCILE_V1.applier", "$JS.API.CONSUMER.INFO.FKC_RECONCILE_V1.applier", "$JS.API.CONSUMER.MSG.NEXT.FKC_RECONCILE_V1.applier", "$JS.ACK.FKC_RECONCILE_V1.applier.>", "$JS.API.INFO", "$JS.API.STREAM.CREATE.KV_FKC_APPLIER_LEASES_V1", "$JS.API.STREAM.UPDATE.KV_FKC_APPLIER_LEASES_V1", "$JS.API.STREAM.INFO.KV_FKC_APPLIER_LEASES_V1", "$KV.FKC_APPLIER_LEASES_V1.>", "$JS.API.DIRECT.GET.KV_FKC_APPLIER_LEASES_V1", "$JS.API.DIRECT.GET.KV_FKC_APPLIER_LEASES_V1.>", "$JS.API.STREAM.MSG.GET.KV_FKC_APPLIER_LEASES_V1", "$JS.API.STREAM.CREATE.KV_FKC_APPLIER_APPLIED_V1", "$JS.API.STREAM.UPDATE.KV_FKC_APPLIER_APPLIED_V1", "$JS.API.STREAM.INFO.KV_FKC_APPLIER_APPLIED_V1", "$KV.FKC_APPLIER_APPLIED_V1.>", "$JS.API.DIRECT.GET.KV_FKC_APPLIER_APPLIED_V1", "$JS.API.DIRECT.GET.KV_FKC_APPLIER_APPLIED_V1.>", "$JS.API.STREAM.MSG.GET.KV_FKC_APPLIER_APPLIED_V1"]
{{- end -}}

{{/* The compiler's KCL package flags (compiler and all-in-one). */}}
{{- define "fkc.kclPackageArgs" -}}
- --kcl-package-cache-dir=/cache/kcl-packages
{{- range .Values.kclPackages.registryMirrors }}
- --kcl-registry-mirror={{ . }}
{{- end }}
{{- range .Values.kclPackages.plainHTTPRegistries }}
- --kcl-registry-plain-http={{ . }}
{{- end }}
{{- if .Values.kclPackages.registryCA.name }}
- --kcl-registry-ca-file=/etc/flux-kcl/registry-ca/{{ .Values.kclPackages.registryCA.key | default "ca.crt" }}
{{- end }}
{{- if .Values.kclPackages.noRemotePackages }}
- --no-remote-packages
{{- end }}
{{- with .Values.kclPackages.allowedHosts }}
- --allowed-package-hosts={{ join "," . }}
{{- end }}
{{- with .Values.kclPackages.allowedNetworks }}
- --allowed-package-networks={{ join "," . }}
{{- end }}
{{- end }}

{{/* The shards (values `shards`), checked, as a JSON list of {name, selector}: each runs its own
watcher and applier (or all-in-one Deployment) with --shard=<name> over the KCLRuns its selector
matches, by default those labelled sharding.fluxcd.io/key=<name> as in Flux's sharding. */}}
{{- define "fkc.shards" -}}
{{- $out := list }}
{{- $seen := dict }}
{{- range .Values.shards }}
{{- $name := toString .name }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$" $name) }}
{{- fail (printf "shards: name %q must be a DNS label of at most 40 characters (it names Deployments and NATS streams)" $name) }}
{{- end }}
{{- if hasKey $seen $name }}
{{- fail (printf "shards: name %q appears twice" $name) }}
{{- end }}
{{- $_ := set $seen $name true }}
{{- $out = append $out (dict "name" $name "selector" (.labelSelector | default (printf "sharding.fluxcd.io/key=%s" $name))) }}
{{- end }}
{{- if and $out .Values.nats.auth.enabled (not .Values.allInOne.enabled) }}
{{- fail "shards with nats.auth.enabled: the bundled server's users are granted the unsharded stream and bucket names only" }}
{{- end }}
{{- toJson $out }}
{{- end -}}
