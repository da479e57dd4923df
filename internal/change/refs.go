package change

import (
	"net/url"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// reference is one object naming another.
type reference struct {
	from  *manifest.Object
	path  manifest.Path
	field string // how it names it, for the message
}

func refKey(kind, namespace, name string) string { return kind + "|" + namespace + "|" + name }

// references indexes what the objects of one target name, by the named
// object's kind, namespace and name: what pods mount and read, what
// Ingresses and HTTPRoutes route to, what autoscalers scale, whom
// bindings bind. Optional references (optional: true) are left out:
// the pod starts without them.
func references(objs []*manifest.Object) map[string][]reference {
	out := map[string][]reference{}
	add := func(o *manifest.Object, kind, ns, name string, p manifest.Path, field string) {
		if name == "" {
			return
		}
		k := refKey(kind, ns, name)
		out[k] = append(out[k], reference{from: o, path: p, field: field})
	}
	for _, o := range objs {
		ns := o.ID.Namespace
		switch o.ID.Kind {
		case "Ingress":
			ingressRefs(o, func(name string, p manifest.Path, field string) { add(o, "Service", ns, name, p, field) },
				func(name string, p manifest.Path) { add(o, "Secret", ns, name, p, "tls secretName") })
		case "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute":
			for i, r := range list(o.Content, "spec", "rules") {
				for j, br := range list(r, "backendRefs") {
					if g, k := str(br, "group"), str(br, "kind"); g != "" || (k != "" && k != "Service") {
						continue
					}
					bns := str(br, "namespace")
					if bns == "" {
						bns = ns
					}
					add(o, "Service", bns, str(br, "name"), manifest.Path{manifest.Key("spec"), manifest.Key("rules"), manifest.Index(i), manifest.Key("backendRefs"), manifest.Index(j), manifest.Key("name")}, "backendRefs")
				}
			}
		case "HorizontalPodAutoscaler":
			add(o, str(o.Content, "spec", "scaleTargetRef", "kind"), ns, str(o.Content, "spec", "scaleTargetRef", "name"), path("spec", "scaleTargetRef", "name"), "scaleTargetRef")
		case "RoleBinding", "ClusterRoleBinding":
			if o.ID.Group() != "rbac.authorization.k8s.io" {
				continue
			}
			for i, s := range list(o.Content, "subjects") {
				if str(s, "kind") != "ServiceAccount" {
					continue
				}
				sns := str(s, "namespace")
				if sns == "" && o.ID.Kind == "RoleBinding" {
					sns = ns
				}
				add(o, "ServiceAccount", sns, str(s, "name"), manifest.Path{manifest.Key("subjects"), manifest.Index(i), manifest.Key("name")}, "subjects")
			}
			if k := str(o.Content, "roleRef", "kind"); k == "Role" {
				add(o, "Role", ns, str(o.Content, "roleRef", "name"), path("roleRef", "name"), "roleRef")
			} else if k == "ClusterRole" {
				add(o, "ClusterRole", "", str(o.Content, "roleRef", "name"), path("roleRef", "name"), "roleRef")
			}
		}
		if pod, p := podSpec(o); pod != nil {
			podRefs(pod, p, ns, func(kind, name string, fp manifest.Path, field string) { add(o, kind, ns, name, fp, field) })
		}
		if o.ID.Kind == "StatefulSet" && o.ID.Group() == "apps" {
			add(o, "Service", ns, str(o.Content, "spec", "serviceName"), path("spec", "serviceName"), "serviceName")
		}
	}
	return out
}

func ingressRefs(o *manifest.Object, service func(string, manifest.Path, string), secret func(string, manifest.Path)) {
	backend := func(b any, p manifest.Path) {
		if name := str(b, "service", "name"); name != "" { // networking.k8s.io/v1
			service(name, p.Child(manifest.Key("service"), manifest.Key("name")), "backend")
		} else if name := str(b, "serviceName"); name != "" { // v1beta1
			service(name, p.Child(manifest.Key("serviceName")), "backend")
		}
	}
	for _, k := range []string{"defaultBackend", "backend"} {
		if b := mapping(o.Content, "spec", k); b != nil {
			backend(b, path("spec", k))
		}
	}
	for i, r := range list(o.Content, "spec", "rules") {
		for j, pth := range list(r, "http", "paths") {
			backend(mapping(pth, "backend"), manifest.Path{manifest.Key("spec"), manifest.Key("rules"), manifest.Index(i),
				manifest.Key("http"), manifest.Key("paths"), manifest.Index(j), manifest.Key("backend")})
		}
	}
	for i, t := range list(o.Content, "spec", "tls") {
		secret(str(t, "secretName"), manifest.Path{manifest.Key("spec"), manifest.Key("tls"), manifest.Index(i), manifest.Key("secretName")})
	}
}

// podSpec is the pod spec of a workload (and its path), nil for other
// kinds.
func podSpec(o *manifest.Object) (map[string]any, manifest.Path) {
	switch o.ID.Kind {
	case "Pod":
		return mapping(o.Content, "spec"), path("spec")
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController":
		return mapping(o.Content, "spec", "template", "spec"), path("spec", "template", "spec")
	case "CronJob":
		return mapping(o.Content, "spec", "jobTemplate", "spec", "template", "spec"), path("spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil, nil
}

// podRefs lists what a pod spec names: volumes, env sources, the service
// account, pull secrets, and Services named by host in env values and in
// command-line arguments (--cache-server=tcp://cache:6379).
func podRefs(pod map[string]any, p manifest.Path, ns string, add func(kind, name string, fp manifest.Path, field string)) {
	optional := func(v any) bool { b, _ := dig(v, "optional"); return b == true }
	for i, v := range list(pod, "volumes") {
		vp := p.Child(manifest.Key("volumes"), manifest.Index(i))
		if cm := mapping(v, "configMap"); cm != nil && !optional(cm) {
			add("ConfigMap", str(cm, "name"), vp.Child(manifest.Key("configMap"), manifest.Key("name")), "volume")
		}
		if s := mapping(v, "secret"); s != nil && !optional(s) {
			add("Secret", str(s, "secretName"), vp.Child(manifest.Key("secret"), manifest.Key("secretName")), "volume")
		}
		if c := mapping(v, "persistentVolumeClaim"); c != nil {
			add("PersistentVolumeClaim", str(c, "claimName"), vp.Child(manifest.Key("persistentVolumeClaim"), manifest.Key("claimName")), "volume")
		}
		for j, src := range list(v, "projected", "sources") {
			sp := vp.Child(manifest.Key("projected"), manifest.Key("sources"), manifest.Index(j))
			if cm := mapping(src, "configMap"); cm != nil && !optional(cm) {
				add("ConfigMap", str(cm, "name"), sp.Child(manifest.Key("configMap"), manifest.Key("name")), "projected volume")
			}
			if s := mapping(src, "secret"); s != nil && !optional(s) {
				add("Secret", str(s, "name"), sp.Child(manifest.Key("secret"), manifest.Key("name")), "projected volume")
			}
		}
	}
	sa, saKey := str(pod, "serviceAccountName"), "serviceAccountName"
	if sa == "" {
		sa, saKey = str(pod, "serviceAccount"), "serviceAccount"
	}
	add("ServiceAccount", sa, p.Child(manifest.Key(saKey)), saKey)
	for i, s := range list(pod, "imagePullSecrets") {
		add("Secret", str(s, "name"), p.Child(manifest.Key("imagePullSecrets"), manifest.Index(i), manifest.Key("name")), "imagePullSecrets")
	}
	for _, ck := range []string{"initContainers", "containers"} {
		for i, c := range list(pod, ck) {
			cp := p.Child(manifest.Key(ck), manifest.Index(i))
			for j, ef := range list(c, "envFrom") {
				ep := cp.Child(manifest.Key("envFrom"), manifest.Index(j))
				if r := mapping(ef, "configMapRef"); r != nil && !optional(r) {
					add("ConfigMap", str(r, "name"), ep.Child(manifest.Key("configMapRef"), manifest.Key("name")), "envFrom")
				}
				if r := mapping(ef, "secretRef"); r != nil && !optional(r) {
					add("Secret", str(r, "name"), ep.Child(manifest.Key("secretRef"), manifest.Key("name")), "envFrom")
				}
			}
			for _, key := range []string{"command", "args"} {
				for j, a := range list(c, key) {
					arg, _ := a.(string)
					if strings.HasPrefix(arg, "-") {
						_, arg, _ = strings.Cut(arg, "=")
					}
					// No variable name: only a scheme, a port or the
					// .svc form says it is an address.
					if host := serviceHost("", arg, ns); host != "" {
						add("Service", host, cp.Child(manifest.Key(key), manifest.Index(j)), key)
					}
				}
			}
			for j, e := range list(c, "env") {
				ep := cp.Child(manifest.Key("env"), manifest.Index(j))
				if r := mapping(e, "valueFrom", "configMapKeyRef"); r != nil && !optional(r) {
					add("ConfigMap", str(r, "name"), ep.Child(manifest.Key("valueFrom"), manifest.Key("configMapKeyRef"), manifest.Key("name")), "env")
				}
				if r := mapping(e, "valueFrom", "secretKeyRef"); r != nil && !optional(r) {
					add("Secret", str(r, "name"), ep.Child(manifest.Key("valueFrom"), manifest.Key("secretKeyRef"), manifest.Key("name")), "env")
				}
				if host := serviceHost(str(e, "name"), str(e, "value"), ns); host != "" {
					add("Service", host, ep.Child(manifest.Key("value")), "env "+str(e, "name"))
				}
			}
		}
	}
}

// serviceHost is the Service name an environment variable addresses, ""
// when it addresses none plainly: a value with a scheme or a port
// (redis://cache:6379, cache:6379), or the in-cluster DNS form
// (cache.shop.svc, cache.shop.svc.cluster.local), or a bare name in a
// variable whose name says it is a host (CACHE_HOST=cache). Other
// namespaces' Services (name.other.svc) are not
// resolved: the name is taken only when the namespace it names is the
// pod's own (ns).
func serviceHost(name, value, ns string) string {
	v := strings.TrimSpace(value)
	if v == "" || strings.ContainsAny(v, " ${}") {
		return ""
	}
	plain := true
	if strings.Contains(v, "://") {
		u, err := url.Parse(v)
		if err != nil {
			return ""
		}
		v, plain = u.Hostname(), false
	} else if h, port, ok := strings.Cut(v, ":"); ok {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return ""
		}
		v, plain = h, false
	}
	if i := strings.Index(v, ".svc"); i > 0 && (strings.HasSuffix(v, ".svc") || strings.HasSuffix(v, ".svc.cluster.local")) {
		host, hostNS, _ := strings.Cut(v[:i], ".")
		if hostNS != ns {
			return ""
		}
		return host
	}
	if strings.Contains(v, ".") {
		return ""
	}
	if plain {
		n := strings.ToUpper(name)
		if !(strings.HasSuffix(n, "HOST") || strings.HasSuffix(n, "HOSTNAME") || strings.HasSuffix(n, "ADDR") || strings.HasSuffix(n, "ADDRESS") || strings.HasSuffix(n, "SERVICE")) {
			return ""
		}
	}
	return v
}
