package bench

import (
	"fmt"
	"strings"
)

// template writes OpenShift Template t: one VirtualMachine, with the
// validation rules in the Template's legacy annotation (which VMs naming
// the Template through vm.kubevirt.io/template are checked against) and a
// generated name, as the common templates have.
func (g *generator) template(t int) {
	name := fmt.Sprintf("bench-server-%d", t)
	g.add(fmt.Sprintf("templates/%s.yaml", name), fmt.Sprintf(`apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: %[1]s
  namespace: openshift
  annotations:
    description: A server VM (benchmark corpus)
    validations: |
      %[2]s
parameters:
  - name: NAME
    description: The VM's name
    generate: expression
    from: "server-[a-z0-9]{8}"
  - name: MEMORY
    value: %[3]dGi
  - name: CORES
    value: "2"
objects:
  - apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: ${NAME}
      labels:
        vm.kubevirt.io/template: %[1]s
    spec:
      runStrategy: Halted
      template:
        spec:
          evictionStrategy: LiveMigrate
          domain:
            cpu:
              cores: ${{CORES}}
            memory:
              guest: ${MEMORY}
            resources:
              requests:
                memory: ${MEMORY}
            devices:
              disks:
                - name: rootdisk
                  disk:
                    bus: virtio
          volumes:
            - name: rootdisk
              containerDisk:
                image: registry.example.com/vms/server:1.0.0
`, name, vmRules, 4+t%4))
}

// reference writes the kube-compare reference: metadata v2 with one part
// per family and one allOrNoneOf component per app (an app is deployed
// whole or not at all), its templates following the base objects, and the
// templates left over as an optional component nothing matches.
func (g *generator) reference(bases []base) {
	budget := g.spec.ReferenceTemplates
	var md strings.Builder
	md.WriteString("apiVersion: v2\nparts:\n")
	seen := map[string]bool{}
	for _, b := range bases {
		if seen[b.family] || budget == 0 {
			continue
		}
		seen[b.family] = true
		fmt.Fprintf(&md, "  - name: %s\n    description: The %s apps\n    components:\n", b.family, b.family)
		component := ""
		for _, o := range b.objects {
			if o.kind == "Secret" || budget == 0 {
				continue
			}
			app := appOf(o.name)
			if app != component {
				component = app
				fmt.Fprintf(&md, "      - name: %s\n        allOrNoneOf:\n", app)
			}
			path := fmt.Sprintf("%s/%s/%s-%s.yaml", b.family, app, strings.ToLower(o.kind), o.name)
			fmt.Fprintf(&md, "          - path: %s\n            config:\n              ignore-unspecified-fields: true\n", path)
			if o.kind == "Deployment" && strings.HasSuffix(o.name, "-web") {
				md.WriteString("              perField:\n                - pathToKey: spec.template.spec.containers.0.image\n                  inlineDiffFunc: regex\n")
			}
			g.add("reference/"+path, o.text(true))
			budget--
		}
	}
	if budget > 0 {
		md.WriteString("  - name: extras\n    description: Optional components no site deploys yet\n    components:\n      - name: network-policies\n        allOrNoneOf:\n")
		for i := 0; i < budget; i++ {
			path := fmt.Sprintf("extras/networkpolicy-%d.yaml", i)
			fmt.Fprintf(&md, "          - path: %s\n", path)
			g.add("reference/"+path, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: extra-%d
  namespace: {{ .metadata.namespace }}
spec:
  podSelector: {}
  policyTypes: [Ingress]
`, i))
		}
	}
	g.add("reference/metadata.yaml", md.String())
}

// appOf is the app an object belongs to: its name up to the component
// suffix ("shop-app3-web" → "shop-app3").
func appOf(name string) string {
	parts := strings.SplitN(name, "-", 3)
	if len(parts) < 2 {
		return name
	}
	return parts[0] + "-" + parts[1]
}
