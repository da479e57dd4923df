{{- define "tplchart.name" -}}
{{ .Chart.Name }}
{{- end }}
