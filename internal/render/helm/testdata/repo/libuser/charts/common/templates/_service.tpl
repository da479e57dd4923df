{{- define "common.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .Values.app.name }}
spec:
  ports:
    - port: {{ .Values.app.port }}
      name: https
  selector:
    app: {{ .Values.app.name }}
{{- end }}
