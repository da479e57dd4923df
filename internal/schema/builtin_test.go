package schema

import (
	"strings"
	"testing"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.27
          imagePullPolicy: IfNotPresent
          ports:
            - containerPort: 8080
              protocol: TCP
          env:
            - name: PORT
              value: "8080"
          resources:
            requests:
              cpu: 500m
              memory: 512Mi
          volumeMounts:
            - name: data
              mountPath: /data
      volumes:
        - name: data
          emptyDir: {}
`

// with replaces the first occurrence of old in s (which must exist).
func with(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in the text", old)
	}
	return strings.Replace(s, old, new, 1)
}

type objectCase struct {
	name string
	// edit turns the valid Deployment into the case's text (or text is
	// given whole).
	old, new string
	text     string
	rule, at string
	msgs     []string
}

func runBuiltinCases(t *testing.T, cases []objectCase) {
	runCases(t, cases, deployment, nil)
}

// runCases runs each case on base (edited) or its own text, written as
// app/object.yaml beside the files of others.
func runCases(t *testing.T, cases []objectCase, base string, others map[string]string) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := c.text
			if text == "" {
				text = with(t, base, c.old, c.new)
			}
			files := map[string]string{"app/object.yaml": text}
			for name, content := range others {
				files[name] = content
			}
			fs := analyze(t, nil, files)
			if c.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("want no finding, got:%s", list(fs))
				}
				return
			}
			expectOne(t, fs, text, c.rule, c.at, c.msgs...)
		})
	}
}

func TestValidObjectsHaveNoFindings(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "deployment", old: "replicas: 2", new: "replicas: 2"},
		{name: "empty resources, null timestamp, empty status", text: deployment + "status: {}\n", old: "", new: ""},
		{name: "creationTimestamp null", old: "  name: web\n", new: "  name: web\n  creationTimestamp: null\n"},
		{name: "null field", old: "replicas: 2", new: "replicas: null"},
		{name: "whole float where an integer goes", old: "replicas: 2", new: "replicas: 2.0"},
		{name: "empty resources", old: "          resources:\n            requests:\n              cpu: 500m\n              memory: 512Mi\n", new: "          resources: {}\n"},
		{name: "quantities as numbers", old: "cpu: 500m", new: "cpu: 0.5"},
		{name: "quantity with exponent", old: "memory: 512Mi", new: "memory: 1e9"},
		{name: "int-or-string as string", old: "  replicas: 2\n", new: "  replicas: 2\n  strategy:\n    rollingUpdate:\n      maxSurge: 25%\n      maxUnavailable: 1\n"},
		{name: "empty enum value is defaulted", old: "imagePullPolicy: IfNotPresent", new: `imagePullPolicy: ""`},
		{name: "status is not checked", text: deployment + "status:\n  replicas: many\n  whatever: 1\n"},
		{name: "quoted template expression for an integer", old: "replicas: 2", new: `replicas: "{{ .Values.replicas }}"`},
		{name: "template expression in a quantity", old: "memory: 512Mi", new: `memory: "{{ .Values.memory }}Mi"`},
		{name: "envsubst variable for an integer", old: "containerPort: 8080", new: `containerPort: "${PORT}"`},
		{name: "bare envsubst variable for an integer", old: "replicas: 2", new: `replicas: $REPLICAS`},
		{name: "Template parameter for an enum", old: "imagePullPolicy: IfNotPresent", new: `imagePullPolicy: "${{PULL_POLICY}}"`},
		{name: "variable in a Secret's data", text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: ${DB_PASSWORD}\n"},
		{name: "service with named target port", text: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: ClusterIP\n  ports:\n    - port: 80\n      targetPort: http\n"},
		// Required in the OpenAPI documents, but the API server accepts
		// them missing (required.go).
		{name: "CSIDriver without spec", text: "apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: mock.storage.k8s.io\n"},
		{name: "probe header without value", old: "          resources:\n", new: "          readinessProbe:\n            httpGet:\n              port: 8080\n              httpHeaders:\n                - name: X-Probe\n          resources:\n"},
		{name: "preferred node affinity without preference", old: "      volumes:\n", new: "      affinity:\n        nodeAffinity:\n          preferredDuringSchedulingIgnoredDuringExecution:\n            - weight: 10\n      volumes:\n"},
		{name: "CRD versions without served or storage", text: `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
    - name: v1beta1
      schema:
        openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`},
		{name: "secret with base64 data", text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: Opaque\ndata:\n  password: cGFzc3dvcmQ=\nstringData:\n  user: admin\n"},
	})
}

func TestUnknownFields(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "misspelt spec field", old: "replicas: 2", new: "replicsa: 2", rule: RuleUnknownField, at: "replicsa",
			msgs: []string{`DeploymentSpec has no field "replicsa"`, `did you mean "replicas"?`}},
		{name: "misspelt container field", old: "imagePullPolicy: IfNotPresent", new: "imagePulPolicy: IfNotPresent", rule: RuleUnknownField, at: "imagePulPolicy",
			msgs: []string{`Container has no field "imagePulPolicy"`, `did you mean "imagePullPolicy"?`}},
		{name: "wrong case", old: "imagePullPolicy: IfNotPresent", new: "ImagePullPolicy: IfNotPresent", rule: RuleUnknownField, at: "ImagePullPolicy",
			msgs: []string{`did you mean "imagePullPolicy"?`}},
		{name: "top level", old: "spec:\n  replicas", new: "specs:\n  replicas", rule: RuleUnknownField, at: "specs:",
			msgs: []string{`Deployment has no field "specs"`, `did you mean "spec"?`}},
		{name: "in metadata", old: "  labels:\n    app: web\nspec", new: "  label:\n    app: web\nspec", rule: RuleUnknownField, at: "label:",
			msgs: []string{`ObjectMeta has no field "label"`, `did you mean "labels"?`}},
		{name: "deep in a list item", old: "mountPath: /data", new: "mountpath: /data", rule: RuleUnknownField, at: "mountpath",
			msgs: []string{`VolumeMount has no field "mountpath"`, `did you mean "mountPath"?`}},
		{name: "no near name", old: "imagePullPolicy: IfNotPresent", new: "sidecarMode: true", rule: RuleUnknownField, at: "sidecarMode",
			msgs: []string{`Container has no field "sidecarMode"`, "remove it or correct its name"}},
		{name: "field at the wrong level", old: "      containers:", new: "      image: nginx\n      containers:", rule: RuleUnknownField, at: "      image: nginx",
			msgs: []string{`PodSpec has no field "image"`}},
		{name: "cronjob seven levels down", text: `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 1 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: job
              image: busybox
              comand: [date]
`, rule: RuleUnknownField, at: "comand", msgs: []string{`did you mean "command"?`}},
	})
}

func TestWrongTypes(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "quoted port", old: "containerPort: 8080", new: `containerPort: "8080"`, rule: RuleWrongType, at: "containerPort",
			msgs: []string{`containerPort must be an integer, not the string "8080": write 8080 without quotes`}},
		{name: "quoted replicas", old: "replicas: 2", new: `replicas: "2"`, rule: RuleWrongType, at: "replicas", msgs: []string{"replicas must be an integer"}},
		{name: "word for an integer", old: "replicas: 2", new: "replicas: two", rule: RuleWrongType, at: "replicas", msgs: []string{"replicas must be an integer, not a string"}},
		{name: "fractional integer", old: "replicas: 2", new: "replicas: 2.5", rule: RuleWrongType, at: "replicas", msgs: []string{"a whole number"}},
		{name: "number for an env value", old: `value: "8080"`, new: "value: 8080", rule: RuleWrongType, at: "value: 8080",
			msgs: []string{"value must be a string, not an integer: quote the value"}},
		{name: "number for a label value", old: "    app: web\nspec", new: "    app: web\n    version: 2\nspec", rule: RuleWrongType, at: "version: 2",
			msgs: []string{"version must be a string"}},
		{name: "boolean annotation", old: "  name: web\n", new: "  name: web\n  annotations:\n    sidecar.istio.io/inject: false\n", rule: RuleWrongType, at: "inject",
			msgs: []string{"must be a string, not a boolean"}},
		{name: "string for a list", old: "          image: nginx:1.27\n", new: "          image: nginx:1.27\n          args: --verbose\n", rule: RuleWrongType, at: "args:",
			msgs: []string{"args must be a list, not a string"}},
		{name: "mapping for a list", old: "      containers:\n        - name: web\n", new: "      containers:\n        web:\n", rule: RuleWrongType, at: "containers:",
			msgs: []string{"containers must be a list, not an object"}},
		{name: "quoted boolean", old: "      containers:", new: "      hostNetwork: \"true\"\n      containers:", rule: RuleWrongType, at: "hostNetwork",
			msgs: []string{`must be true or false, not the string "true": write true without quotes`}},
		{name: "scalar for an object", old: "emptyDir: {}", new: "emptyDir: yes", rule: RuleWrongType, at: "emptyDir",
			msgs: []string{"emptyDir must be an object"}},
		{name: "fraction for int-or-string", old: "  replicas: 2\n", new: "  replicas: 2\n  strategy:\n    rollingUpdate:\n      maxSurge: 1.5\n", rule: RuleWrongType, at: "maxSurge",
			msgs: []string{"a whole number or a string"}},
		{name: "instructions are no placeholder", old: "containerPort: 8080", new: `containerPort: "<ADD PORT HERE>"`, rule: RuleWrongType, at: "containerPort",
			msgs: []string{"containerPort must be an integer, not a string"}},
		{name: "a dollar and a number are no variable", old: "replicas: 2", new: `replicas: "${2}"`, rule: RuleWrongType, at: "replicas"},
		{name: "configmap number value", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  retries: 3\n", rule: RuleWrongType, at: "retries",
			msgs: []string{"retries must be a string, not an integer"}},
	})
}

// Secret values never appear in messages.
func TestSecretValuesAreNotQuoted(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "data not base64", text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: hunter2!\n", rule: RuleInvalidValue, at: "password",
			msgs: []string{"password is not base64-encoded", "stringData"}},
		{name: "stringData number", text: "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  pin: \"1234\"\n  port: 5432\n", rule: RuleWrongType, at: "port: 5432",
			msgs: []string{"port must be a string, not an integer"}},
	})
	text := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: hunter2!\n"
	for _, f := range analyze(t, nil, map[string]string{"s.yaml": text}) {
		if strings.Contains(f.Message, "hunter2") {
			t.Errorf("the secret value leaked: %s", f.Message)
		}
	}
}

func TestQuantities(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "GB", old: "memory: 512Mi", new: "memory: 1GB", rule: RuleInvalidQuantity, at: "memory",
			msgs: []string{`memory "1GB" is not a quantity: did you mean 1G (10^9 bytes) or 1Gi (2^30 bytes)?`}},
		{name: "lower-case mb", old: "memory: 512Mi", new: "memory: 512mb", rule: RuleInvalidQuantity, at: "memory", msgs: []string{"512M (10^6 bytes) or 512Mi"}},
		{name: "space", old: "memory: 512Mi", new: `memory: "512 Mi"`, rule: RuleInvalidQuantity, at: "memory", msgs: []string{`write "512Mi" without spaces`}},
		{name: "lower-case binary", old: "memory: 512Mi", new: "memory: 512mi", rule: RuleInvalidQuantity, at: "memory", msgs: []string{"did you mean 512Mi?"}},
		{name: "a word", old: "cpu: 500m", new: "cpu: half", rule: RuleInvalidQuantity, at: "cpu", msgs: []string{"e.g. 500m, 2, 1.5Gi"}},
		{name: "a list", old: "cpu: 500m", new: "cpu: [1]", rule: RuleWrongType, at: "cpu", msgs: []string{"must be a quantity"}},
		{name: "claim storage", text: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 10gb\n",
			rule: RuleInvalidQuantity, at: "storage", msgs: []string{"10G (10^9 bytes) or 10Gi"}},
	})
}

func TestRequiredFields(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "container without name", old: "        - name: web\n          image: nginx:1.27\n", new: "        - image: nginx:1.27\n", rule: RuleRequired, at: "- image: nginx",
			msgs: []string{`Container is missing the required field "name"`}},
		// The schema leaves image optional; pod validation requires it in
		// every pod template (issue 34).
		{name: "container without image", old: "          image: nginx:1.27\n", new: "", rule: RuleRequired, at: "- name: web",
			msgs: []string{`Container is missing the required field "image"`}},
		{name: "env without name", old: "            - name: PORT\n              value", new: "            - value", rule: RuleRequired, at: `- value: "8080"`,
			msgs: []string{`EnvVar is missing the required field "name"`}},
		{name: "deployment without selector", old: "  selector:\n    matchLabels:\n      app: web\n", new: "", rule: RuleRequired, at: "spec:",
			msgs: []string{`DeploymentSpec is missing the required field "selector"`}},
		{name: "service port without port", text: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - name: http\n      targetPort: 8080\n",
			rule: RuleRequired, at: "- name: http", msgs: []string{`ServicePort is missing the required field "port"`}},
		{name: "ingress path without pathType", text: `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
    - http:
        paths:
          - path: /
            backend:
              service:
                name: web
                port:
                  number: 80
`, rule: RuleRequired, at: "- path: /", msgs: []string{`HTTPIngressPath is missing the required field "pathType"`}},
	})
}

func TestEnums(t *testing.T) {
	runBuiltinCases(t, []objectCase{
		{name: "pull policy", old: "imagePullPolicy: IfNotPresent", new: "imagePullPolicy: Sometimes", rule: RuleEnum, at: "imagePullPolicy",
			msgs: []string{`imagePullPolicy "Sometimes" is not accepted: use one of Always, IfNotPresent, Never`}},
		{name: "protocol typo", old: "protocol: TCP", new: "protocol: TCPX", rule: RuleEnum, at: "protocol", msgs: []string{`did you mean "TCP"?`}},
		{name: "protocol case", old: "protocol: TCP", new: "protocol: tcp", rule: RuleEnum, at: "protocol", msgs: []string{`did you mean "TCP"? (values are case-sensitive)`}},
		{name: "service type", text: "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: Loadbalancer\n  ports:\n    - port: 80\n",
			rule: RuleEnum, at: "type:", msgs: []string{`did you mean "LoadBalancer"?`}},
		{name: "restart policy", old: "      containers:", new: "      restartPolicy: Sometimes\n      containers:", rule: RuleEnum, at: "restartPolicy", msgs: []string{"Always, OnFailure, Never"}},
		{name: "dns policy", old: "      containers:", new: "      dnsPolicy: ClusterFirstt\n      containers:", rule: RuleEnum, at: "dnsPolicy", msgs: []string{`did you mean "ClusterFirst"?`}},
		{name: "access mode item", text: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n  accessModes:\n    - ReadWriteOnly\n  resources:\n    requests:\n      storage: 1Gi\n",
			rule: RuleEnum, at: "- ReadWriteOnly", msgs: []string{"ReadWriteOnce"}},
		{name: "strategy type", old: "  replicas: 2\n", new: "  replicas: 2\n  strategy:\n    type: BlueGreen\n", rule: RuleEnum, at: "type: BlueGreen", msgs: []string{"Recreate, RollingUpdate"}},
		{name: "selector operator", old: "    matchLabels:\n      app: web\n", new: "    matchExpressions:\n      - key: app\n        operator: Equals\n        values: [web]\n", rule: RuleEnum, at: "operator", msgs: []string{"In, NotIn, Exists, DoesNotExist"}},
	})
}

func TestManyProblemsInOneObject(t *testing.T) {
	text := with(t, with(t, deployment, "replicas: 2", `replicas: "2"`), "imagePullPolicy: IfNotPresent", "imagePulPolicy: Sometimes")
	fs := analyze(t, nil, map[string]string{"a.yaml": text})
	if len(fs) != 2 {
		t.Fatalf("want 2 findings:%s", list(fs))
	}
	if fs[0].Location.Line >= fs[1].Location.Line {
		t.Errorf("findings out of order:%s", list(fs))
	}
}
