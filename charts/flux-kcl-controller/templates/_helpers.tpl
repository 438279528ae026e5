{{- define "fkc.image" -}}
{{ .root.Values.image.registry }}/{{ .name }}:{{ .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- end -}}
{{- define "fkc.natsURL" -}}
{{ .Values.nats.url | default (printf "nats://kcl-nats.%s.svc:4222" .Release.Namespace) }}
{{- end -}}
