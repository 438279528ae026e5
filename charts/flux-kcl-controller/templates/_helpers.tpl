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

{{/* The subjects each NATS identity may use, as JSON {watcher, applier: {publish, subscribe}}:
internal/natsconn's WatcherPermissions and ApplierPermissions (with drift requests) for the
main instance and every shard (internal/shard's names), which share the two users; test/install
compares them. */}}
{{- define "fkc.natsPermissions" -}}
{{- $instances := list "" }}
{{- range (include "fkc.shards" . | fromJsonArray) }}{{ $instances = append $instances .name }}{{ end }}
{{- $watcherPub := list }}{{ $watcherSub := list }}{{ $applierPub := list }}{{ $applierSub := list }}
{{- range $s := $instances }}
{{- $sfx := ternary "" (printf "_%s" $s) (eq $s "") }}
{{- $stream := printf "FKC_RECONCILE_V1%s" $sfx }}
{{- $filter := ternary "fkc.v1.reconcile.>" (printf "fkc.v1.shard.%s.reconcile.>" $s) (eq $s "") }}
{{- $consumer := printf "%s.applier%s" $stream (ternary "" (printf "-%s" $s) (eq $s "")) }}
{{- $manage := list (printf "$JS.API.STREAM.CREATE.%s" $stream) (printf "$JS.API.STREAM.UPDATE.%s" $stream) (printf "$JS.API.STREAM.INFO.%s" $stream) }}
{{- $watcherPub = concat $watcherPub (list $filter) $manage }}
{{- $watcherSub = append $watcherSub (printf "_INBOX_watcher%s.>" $sfx) }}
{{- $applierPub = concat $applierPub (list $filter) $manage }}
{{- $applierPub = concat $applierPub (list (printf "$JS.API.CONSUMER.CREATE.%s" $consumer) (printf "$JS.API.CONSUMER.CREATE.%s.>" $consumer) (printf "$JS.API.CONSUMER.DURABLE.CREATE.%s" $consumer) (printf "$JS.API.CONSUMER.INFO.%s" $consumer) (printf "$JS.API.CONSUMER.MSG.NEXT.%s" $consumer) (printf "$JS.ACK.%s.>" $consumer) "$JS.API.INFO") }}
{{- range $bucket := list (printf "FKC_APPLIER_LEASES_V1%s" $sfx) (printf "FKC_APPLIER_APPLIED_V1%s" $sfx) }}
{{- $kv := printf "KV_%s" $bucket }}
{{- $applierPub = concat $applierPub (list (printf "$JS.API.STREAM.CREATE.%s" $kv) (printf "$JS.API.STREAM.UPDATE.%s" $kv) (printf "$JS.API.STREAM.INFO.%s" $kv) (printf "$KV.%s.>" $bucket) (printf "$JS.API.DIRECT.GET.%s" $kv) (printf "$JS.API.DIRECT.GET.%s.>" $kv) (printf "$JS.API.STREAM.MSG.GET.%s" $kv)) }}
{{- end }}
{{- $applierSub = append $applierSub (printf "_INBOX_applier%s.>" $sfx) }}
{{- end }}
{{- dict "watcher" (dict "publish" (uniq $watcherPub) "subscribe" $watcherSub) "applier" (dict "publish" (uniq $applierPub) "subscribe" $applierSub) | toJson }}
{{- end -}}

{{/* A list of subjects as a NATS configuration array of quoted strings. */}}
{{- define "fkc.natsSubjects" -}}
[{{ range $i, $s := . }}{{ if $i }}, {{ end }}"{{ $s }}"{{ end }}]
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
{{- toJson $out }}
{{- end -}}

{{/* The applier's artifact storage flags (spec.output.mode ExternalArtifact), for the
Deployment app (its Service has the same name). */}}
{{- define "fkc.artifactStorageArgs" -}}
{{- if .root.Values.artifactStorage.enabled }}
- --storage-path=/storage
- --storage-addr=:9090
- --storage-adv-addr={{ .app }}.{{ .root.Release.Namespace }}.svc.cluster.local.
- --artifact-retention-records={{ .root.Values.artifactStorage.retentionRecords }}
{{- end }}
{{- end }}

{{/* The Service in front of the artifact storage of the Deployment app. */}}
{{- define "fkc.artifactStorageService" -}}
{{- if .root.Values.artifactStorage.enabled }}
---
# The artifacts of KCLRuns with spec.output.mode ExternalArtifact, as source-controller serves
# its own: kustomize-controller fetches status.artifact.url of the ExternalArtifact.
apiVersion: v1
kind: Service
metadata:
  name: {{ .app }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    app.kubernetes.io/name: {{ .app }}
    {{- include "fkc.labels" .root | nindent 4 }}
spec:
  selector:
    app.kubernetes.io/name: {{ .app }}
  ports:
    - {name: http, port: 80, targetPort: http}
{{- end }}
{{- end }}
