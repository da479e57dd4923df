package schema

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// corpusFindings renders a corpus directory as plumb check does and returns
// the schema findings as "file:line rule", one per finding, and the notes
// about kinds without a CRD as "schema/no-schema apiVersion Kind".
func corpusFindings(t *testing.T, dir string) []string {
	fsys := os.DirFS(dir)
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	res := render.Render(context.Background(), fsys, set, checkRenderOptions)
	objects := 0
	for _, tg := range res.Targets {
		objects += len(tg.Objects)
	}
	t.Logf("%d objects in %d targets", objects, len(res.Targets))
	out, err := (&Analyzer{}).Analyze(context.Background(), &analyzer.Input{Targets: res.Targets})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		if f.RuleID == RuleNoSchema {
			// One note per kind, at the first object of the kind.
			got = append(got, fmt.Sprintf("%s %s %s", f.RuleID, f.Object.APIVersion, f.Object.Kind))
			continue
		}
		got = append(got, fmt.Sprintf("%s:%d %s", f.Location.File, f.Location.Line, f.RuleID))
	}
	slices.Sort(got)
	return got
}

// TestCorpus: on the real-world repositories the analyzer reports the
// problems their README lists, the real problems listed below, and
// nothing else (every other object is valid). The README's {{…}}
// placeholder files and the scheduler Policy files are the loader's (not
// objects); the schema analyzer never sees them.
func TestCorpus(t *testing.T) {
	corpus := testcorpus.Dir(t)
	want := map[string][]string{
		"realworld/examples": {
			// Notes: kinds without a CRD.
			"schema/no-schema monitoring.coreos.com/v1 PrometheusRule",
			"schema/no-schema monitoring.coreos.com/v1 ServiceMonitor",
			// Known (README): removed API versions.
			"_archived/cloud-controller-manager/persistent-volume-label-initializer-config.yaml:2 schema/removed-api",
			"_archived/cockroachdb/cockroachdb-statefulset.yaml:57 schema/removed-api",
			"_archived/newrelic-infrastructure/newrelic-infra-daemonset.yaml:1 schema/removed-api",
			"_archived/podsecuritypolicy/rbac/policies.yaml:1 schema/removed-api",
			"_archived/podsecuritypolicy/rbac/policies.yaml:26 schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/account-specified-hdd/storageclass-account-hdd.yaml:2 schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/dedicated-hdd/storageclass-dedicated-hdd.yaml:2 schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/shared-hdd/storageclass-shared-hdd.yaml:2 schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/shared-ssd/storageclass-shared-ssd.yaml:2 schema/removed-api",
			"_archived/volumes/azure_disk/claim/managed-disk/managed-hdd/storageclass-managed-hdd.yaml:2 schema/removed-api",
			"_archived/volumes/azure_disk/claim/managed-disk/managed-ssd/storageclass-managed-ssd.yaml:2 schema/removed-api",
			"_archived/volumes/flexvolume/deploy/ds.yaml:1 schema/removed-api",
			// Real problems the README does not list: protocol "tcp" (the
			// API accepts TCP, UDP, SCTP only), a "<ADD LUN ID Here>"
			// placeholder for an integer, StorageClass parameters written
			// into a pod's rbd volume, a misspelt protectionDomain, fields
			// StorageOS volumes do not have.
			"_archived/volumes/aws_ebs/aws-ebs-web.yaml:12 schema/enum",
			"_archived/volumes/cinder/cinder-web.yaml:12 schema/enum",
			"_archived/volumes/fibre_channel/fc.yaml:17 schema/wrong-type",
			"_archived/volumes/rbd/rbd.yaml:25 schema/unknown-field",
			"_archived/volumes/rbd/rbd.yaml:26 schema/unknown-field",
			"_archived/volumes/scaleio/pod.yaml:17 schema/unknown-field",
			"_archived/volumes/storageos/storageos-pod.yaml:35 schema/unknown-field",
			"_archived/volumes/storageos/storageos-pv.yaml:22 schema/unknown-field",
		},
		"realworld/library": {
			// Notes: kinds without a CRD.
			"schema/no-schema apps.openshift.io/v1 DeploymentConfig",
			"schema/no-schema authorization.openshift.io/v1 RoleBinding",
			"schema/no-schema build.openshift.io/v1 BuildConfig",
			"schema/no-schema image.openshift.io/v1 ImageStream",
			"schema/no-schema monitoring.coreos.com/v1 ServiceMonitor",
			"schema/no-schema route.openshift.io/v1 Route",
			// Known (README): the group-less legacy apiVersion v1.
			"official/3scale/imagestreams/apicast-gateway.json:2 schema/unknown-kind",
			"official/amq/imagestreams/jboss-amq-63-rhel7.json:2 schema/unknown-kind",
			"official/amq/templates/amq63-basic.json:143 schema/unknown-kind",
			"official/amq/templates/amq63-persistent.json:146 schema/unknown-kind",
			"official/amq/templates/amq63-persistent.json:310 schema/unknown-kind",
			"official/amq/templates/amq63-persistent-ssl.json:242 schema/unknown-kind",
			"official/amq/templates/amq63-persistent-ssl.json:457 schema/unknown-kind",
			"official/amq/templates/amq63-ssl.json:242 schema/unknown-kind",
			"official/3scale/templates/3scale-gateway.json:19 schema/unknown-kind",
			// Real problems the README does not list: Deployments converted
			// from DeploymentConfigs that kept DeploymentConfig fields
			// (recreateParams, triggers, a selector without matchLabels),
			// a container-level "capabilities" and a Service's
			// deprecatedPublicIPs, which apps/v1 and v1 do not define.
			"official/cakephp/templates/cakephp-mysql-example.json:160 schema/unknown-field",
			// StatefulSets converted from DeploymentConfigs that kept
			// strategy.rollingParams and triggers, and an "empty-dir"
			// volume (emptyDir) in the datagrid templates.
			"official/datagrid/templates/cache-service.json:111 schema/unknown-field",
			"official/datagrid/templates/cache-service.json:247 schema/unknown-field",
			"official/datagrid/templates/cache-service.json:259 schema/unknown-field",
			"official/datagrid/templates/datagrid-service.json:111 schema/unknown-field",
			"official/datagrid/templates/datagrid-service.json:239 schema/unknown-field",
			"official/datagrid/templates/datagrid-service.json:251 schema/unknown-field",
			"official/dancer/templates/dancer-mysql-example.json:282 schema/unknown-field",
			"official/fis/templates/s2i-fuse713-spring-boot-2-camel-rest-3scale.json:53 schema/unknown-field",
			"official/mysql/templates/mysql-ephemeral.json:97 schema/unknown-field",
			"official/nodejs/templates/nodejs-example.json:194 schema/unknown-field",
			"official/postgresql/templates/postgresql-ephemeral.json:95 schema/unknown-field",
			"official/postgresql/templates/postgresql-persistent.json:112 schema/unknown-field",
			"official/redis/templates/redis-ephemeral.json:91 schema/unknown-field",
			"official/redis/templates/redis-persistent.json:108 schema/unknown-field",
		},
		"realworld/podinfo": {
			// Notes: kinds without a CRD.
			"schema/no-schema cert-manager.io/v1 Certificate",
			"schema/no-schema cert-manager.io/v1 ClusterIssuer",
		},
		"realworld/microservices-demo": {
			// Notes: kinds without a CRD.
			"schema/no-schema gateway.networking.k8s.io/v1beta1 Gateway",
			"schema/no-schema gateway.networking.k8s.io/v1beta1 HTTPRoute",
			"schema/no-schema networking.istio.io/v1alpha3 ServiceEntry",
			"schema/no-schema networking.istio.io/v1alpha3 VirtualService",
		},
		"realworld/flux2-kustomize-helm-example": {
			// Notes: kinds without a CRD.
			"schema/no-schema cert-manager.io/v1 ClusterIssuer",
			"schema/no-schema gateway.networking.k8s.io/v1 Gateway",
			"schema/no-schema gateway.networking.k8s.io/v1 GatewayClass",
			"schema/no-schema helm.toolkit.fluxcd.io/v2 HelmRelease",
			"schema/no-schema kustomize.toolkit.fluxcd.io/v1 Kustomization",
			"schema/no-schema source.extensions.fluxcd.io/v1beta1 ArtifactGenerator",
			"schema/no-schema source.toolkit.fluxcd.io/v1 HelmRepository",
			"schema/no-schema source.toolkit.fluxcd.io/v1 OCIRepository",
		},
		"kubevirt-common-templates": nil,
		"telco-ran-reference": {
			// Notes: kinds without a CRD.
			"schema/no-schema config.openshift.io/v1 Infrastructure",
			"schema/no-schema config.openshift.io/v1 OperatorHub",
			"schema/no-schema machineconfiguration.openshift.io/v1 MachineConfig",
			"schema/no-schema operator.openshift.io/v1 Console",
			"schema/no-schema operator.openshift.io/v1 Network",
			"schema/no-schema operators.coreos.com/v1 OperatorGroup",
		},
	}
	for dir, expected := range want {
		t.Run(dir, func(t *testing.T) {
			got := corpusFindings(t, filepath.Join(corpus, dir))
			expected = slices.Sorted(slices.Values(expected))
			if slices.Equal(got, expected) {
				return
			}
			for _, g := range got {
				if !slices.Contains(expected, g) {
					t.Errorf("unexpected: %s", g)
				}
			}
			for _, e := range expected {
				if !slices.Contains(got, e) {
					t.Errorf("missing: %s", e)
				}
			}
			if len(got) != len(expected) {
				t.Errorf("%d findings, want %d:\n%s", len(got), len(expected), strings.Join(got, "\n"))
			}
		})
	}
}
