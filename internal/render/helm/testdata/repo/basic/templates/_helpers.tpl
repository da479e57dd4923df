{{- define "basic.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "basic.fullname" -}}
{{- printf "%s-%s" .Release.Name (include "basic.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "basic.selectorLabels" -}}
app.kubernetes.io/name: {{ include "basic.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "basic.labels" -}}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{ include "basic.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
