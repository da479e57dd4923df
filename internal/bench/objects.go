package bench

import (
	"fmt"
	"strings"
)

// base is one generated base: a directory of apps, one file per app.
type base struct {
	dir    string
	family string
	// apps are the app names, e.g. "shop-app0".
	apps []string
	// images are the web images of the apps (overlays retag the first).
	images  []string
	objects []object
}

// object is one generated object, as the base writes it and as a
// reference template expects it.
type object struct {
	kind, name string
	// text writes the object's YAML: for the base (tmpl false) or, for a
	// reference template (tmpl true), with the namespace taken from the
	// input, the web image as a regular expression and the fields the
	// overlays set left out.
	text func(tmpl bool) string
}

// appKinds is the order of the ten objects of an app; a base whose object
// count is not a multiple of ten stops part-way through its last app.
var appKinds = []string{"Deployment", "Service", "ConfigMap", "Deployment", "Service", "StatefulSet", "Secret", "Ingress", "PodDisruptionBudget", "VirtualMachine"}

// familyCount is the number of app families the bases cycle through: as
// many as the reference templates cover (one template per object of a
// family, Secrets excepted), within the bases there are.
func (s Spec) familyCount() int {
	perFamily := 0
	for i := 0; i < s.ObjectsPerBase; i++ {
		if appKinds[i%len(appKinds)] != "Secret" {
			perFamily++
		}
	}
	f := 1
	if perFamily > 0 {
		f = s.ReferenceTemplates / perFamily
	}
	return max(1, min(f, s.Bases, len(families)))
}

// defects are the best practices an app breaks on purpose, chosen at
// random per base so that every engine has something to report.
type defects struct {
	workerNoMemoryLimit bool // checks A10003
	workerLatestImage   bool // checks C10001
	dbWritableRoot      bool // checks D10002
	vmSmallMemory       bool // the VM's validation rule, checks K10004
	vmSATADisk          bool // the VM's validation rule, checks K10003
	configPassword      bool // checks G10002
}

func (g *generator) defects() defects {
	hit := func() bool { return g.rng.IntN(5) == 0 }
	return defects{hit(), hit(), hit(), hit(), hit(), hit()}
}

// base writes base b.
func (g *generator) base(b int) base {
	fam := families[b%g.spec.familyCount()]
	bs := base{dir: fmt.Sprintf("b%02d", b), family: fam}
	var resources []string
	for a := 0; len(bs.objects) < g.spec.ObjectsPerBase; a++ {
		app := fmt.Sprintf("%s-app%d", fam, a)
		image := fmt.Sprintf("registry.example.com/%s/app%d-web", fam, a)
		bs.apps = append(bs.apps, app)
		bs.images = append(bs.images, image)
		objs := g.app(b, a, app, image, g.defects())
		if room := g.spec.ObjectsPerBase - len(bs.objects); len(objs) > room {
			objs = objs[:room]
		}
		var file strings.Builder
		for i, o := range objs {
			if i > 0 {
				file.WriteString("---\n")
			}
			file.WriteString(o.text(false))
		}
		name := fmt.Sprintf("app%d.yaml", a)
		g.add("bases/"+bs.dir+"/"+name, file.String())
		resources = append(resources, "  - "+name)
		bs.objects = append(bs.objects, objs...)
	}
	g.add("bases/"+bs.dir+"/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"+strings.Join(resources, "\n")+"\n")
	return bs
}

// app returns the ten objects of one app, in appKinds order.
func (g *generator) app(b, a int, app, image string, d defects) []object {
	version := fmt.Sprintf("1.2.%d", a%7)
	password := fmt.Sprintf("%016x", g.rng.Uint64())
	vmTemplate := fmt.Sprintf("bench-server-%d", a%max(1, g.spec.Templates))
	ownRules := g.spec.Templates == 0 || a%2 == 0
	// Reference templates describe the app as it should be: without the
	// defects.
	defectsFor := func(tmpl bool) defects {
		if tmpl {
			return defects{}
		}
		return d
	}
	return []object{
		{"Deployment", app + "-web", func(t bool) string { return webDeployment(t, app, image, version) }},
		{"Service", app + "-web", func(t bool) string { return service(t, app+"-web", false) }},
		{"ConfigMap", app + "-config", func(t bool) string { return configMap(t, app, defectsFor(t).configPassword) }},
		{"Deployment", app + "-worker", func(t bool) string { return workerDeployment(t, app, version, defectsFor(t)) }},
		{"Service", app + "-db", func(t bool) string { return service(t, app+"-db", true) }},
		{"StatefulSet", app + "-db", func(t bool) string { return statefulSet(t, app, defectsFor(t).dbWritableRoot) }},
		{"Secret", app + "-credentials", func(t bool) string { return secret(t, app, password) }},
		{"Ingress", app, func(t bool) string { return ingress(t, app) }},
		{"PodDisruptionBudget", app + "-web", func(t bool) string { return pdb(t, app) }},
		{"VirtualMachine", app + "-vm", func(t bool) string { return virtualMachine(t, app, vmTemplate, ownRules, defectsFor(t)) }},
	}
}

// namespaceLine is empty in a base (overlays set the namespace) and
// templated from the input in a reference template.
func namespaceLine(tmpl bool) string {
	if tmpl {
		return "  namespace: {{ .metadata.namespace }}\n"
	}
	return ""
}

// replicasLine is left out of reference templates: overlays set replicas
// per environment.
func replicasLine(tmpl bool, n int) string {
	if tmpl {
		return ""
	}
	return fmt.Sprintf("  replicas: %d\n", n)
}

func labels(app, component string) string {
	return fmt.Sprintf(`    app.kubernetes.io/name: %s-%s
    app.kubernetes.io/part-of: %s
`, app, component, app)
}

// restricted is the container security context the checks ask for.
const restricted = `          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities:
              drop: [ALL]
`

func webDeployment(tmpl bool, app, image, version string) string {
	img := image + ":" + version
	if tmpl {
		// The overlays retag the image: the reference accepts any 1.x.y
		// release (a regex inline diff).
		img = strings.ReplaceAll(image, ".", `\.`) + `:1\.[0-9]+\.[0-9]+`
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s-web
%[2]s  labels:
%[3]sspec:
%[4]s  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s-web
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s-web
    spec:
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: web
          image: '%[5]s'
          ports:
            - containerPort: 8080
              name: http
          envFrom:
            - configMapRef:
                name: %[1]s-config
          env:
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: %[1]s-credentials
                  key: password
          livenessProbe:
            httpGet: {path: /healthz, port: http}
          readinessProbe:
            httpGet: {path: /ready, port: http}
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 256Mi}
%[6]s`, app, namespaceLine(tmpl), labels(app, "web"), replicasLine(tmpl, 2), img, restricted)
}

func workerDeployment(tmpl bool, app, version string, d defects) string {
	image := fmt.Sprintf("registry.example.com/%s-worker:%s", app, version)
	if d.workerLatestImage {
		image = fmt.Sprintf("registry.example.com/%s-worker:latest", app)
	}
	limits := "\n            limits: {memory: 512Mi}"
	if d.workerNoMemoryLimit {
		limits = ""
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s-worker
%[2]s  labels:
%[3]sspec:
%[4]s  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s-worker
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s-worker
    spec:
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: worker
          image: %[5]s
          args: [--queue, %[1]s]
          livenessProbe:
            exec: {command: [/bin/worker, --check]}
          readinessProbe:
            exec: {command: [/bin/worker, --ready]}
          resources:
            requests: {cpu: 250m, memory: 256Mi}%[6]s
%[7]s`, app, namespaceLine(tmpl), labels(app, "worker"), replicasLine(tmpl, 1), image, limits, restricted)
}

func service(tmpl bool, name string, headless bool) string {
	port, extra := "80\n      targetPort: http", ""
	if headless {
		port, extra = "5432", "  clusterIP: None\n"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s
%[2]sspec:
%[3]s  selector:
    app.kubernetes.io/name: %[1]s
  ports:
    - name: main
      port: %[4]s
`, name, namespaceLine(tmpl), extra, port)
}

func configMap(tmpl bool, app string, password bool) string {
	extra := ""
	if password {
		extra = "  password: changeme\n"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-config
%[2]sdata:
  LOG_LEVEL: info
  config.yaml: |
    server:
      port: 8080
      name: %[1]s
    cache:
      ttl: 30s
%[3]s`, app, namespaceLine(tmpl), extra)
}

func statefulSet(tmpl bool, app string, writableRoot bool) string {
	sc := restricted
	if writableRoot {
		sc = strings.Replace(sc, "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", 1)
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: %[1]s-db
%[2]s  labels:
%[3]sspec:
  serviceName: %[1]s-db
%[4]s  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s-db
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s-db
    spec:
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: postgres
          image: registry.example.com/library/postgres:16.4
          ports:
            - containerPort: 5432
              name: sql
          livenessProbe:
            tcpSocket: {port: sql}
          readinessProbe:
            exec: {command: [pg_isready]}
          resources:
            requests: {cpu: 500m, memory: 1Gi}
            limits: {memory: 2Gi}
          volumeMounts:
            - name: data
              mountPath: /var/lib/postgresql/data
%[5]s  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: 10Gi
`, app, namespaceLine(tmpl), labels(app, "db"), replicasLine(tmpl, 1), sc)
}

func secret(tmpl bool, app, password string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: %[1]s-credentials
%[2]stype: Opaque
stringData:
  password: %[3]s
`, app, namespaceLine(tmpl), password)
}

func ingress(tmpl bool, app string) string {
	return fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: %[1]s
%[2]sspec:
  ingressClassName: nginx
  rules:
    - host: %[1]s.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: %[1]s-web
                port:
                  number: 80
`, app, namespaceLine(tmpl))
}

func pdb(tmpl bool, app string) string {
	return fmt.Sprintf(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: %[1]s-web
%[2]sspec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s-web
`, app, namespaceLine(tmpl))
}

// vmRules are the validation rules of the generated VMs and Templates
// (those of the common templates' server flavours).
const vmRules = `[
        {"name": "minimal-required-memory", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "This VM requires more memory.", "min": 2147483648},
        {"name": "virtio-disk-bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum", "message": "virtio disk bus type has better performance", "values": ["virtio"], "justWarning": true},
        {"name": "disk-bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum", "message": "disk bus has to be either virtio or sata or scsi", "values": ["virtio", "sata", "scsi"]},
        {"name": "minimal-required-cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "This VM requires more cores.", "min": 1},
        {"name": "maximal-cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "This VM has too many cores.", "max": 16}
      ]`

// virtualMachine carries its own rules (ownRules) or names one of the
// generated Templates, whose rules then apply.
func virtualMachine(tmpl bool, app, template string, ownRules bool, d defects) string {
	memory, bus := "4Gi", "virtio"
	if d.vmSmallMemory {
		memory = "1Gi"
	}
	if d.vmSATADisk {
		bus = "sata"
	}
	var rules string
	if ownRules {
		rules = "  annotations:\n    vm.kubevirt.io/validations: |\n      " + vmRules + "\n"
	} else {
		rules = fmt.Sprintf("  labels:\n    vm.kubevirt.io/template: %s\n    vm.kubevirt.io/template.namespace: openshift\n", template)
	}
	return fmt.Sprintf(`apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: %[1]s-vm
%[2]s%[3]sspec:
  runStrategy: Always
  template:
    metadata:
      labels:
        kubevirt.io/domain: %[1]s-vm
    spec:
      evictionStrategy: LiveMigrate
      domain:
        cpu:
          cores: 2
        memory:
          guest: %[4]s
        resources:
          requests:
            memory: %[4]s
        devices:
          disks:
            - name: rootdisk
              disk:
                bus: %[5]s
          interfaces:
            - name: default
              masquerade: {}
      networks:
        - name: default
          pod: {}
      volumes:
        - name: rootdisk
          containerDisk:
            image: registry.example.com/vms/%[1]s:1.0.0
`, app, namespaceLine(tmpl), rules, memory, bus)
}
