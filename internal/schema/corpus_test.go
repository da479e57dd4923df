package schema

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// corpusDir finds ../shared/corpus from the module root.
func corpusDir(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the real-world corpus is not at %s: skipping", dir)
	}
	return dir
}

// corpusFindings renders a corpus directory as plumb check does and returns
// the schema findings that are not notes, as "file rule".
func corpusFindings(t *testing.T, dir string) []string {
	fsys := os.DirFS(dir)
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	res := render.Render(context.Background(), fsys, set, render.Options{})
	out, err := (&Analyzer{}).Analyze(context.Background(), &analyzer.Input{Targets: res.Targets})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		if f.RuleID != RuleNoSchema {
			got = append(got, fmt.Sprintf("%s %s", f.Location.File, f.RuleID))
		}
	}
	slices.Sort(got)
	return slices.Compact(got)
}

// TestCorpus: on the real-world repositories the analyzer reports the
// problems their README lists, the real problems listed below, and
// nothing else (every other object is valid). The README's {{…}}
// placeholder files give nothing: placeholders are not validated.
func TestCorpus(t *testing.T) {
	corpus := corpusDir(t)
	want := map[string][]string{
		"realworld/examples": {
			// Known (README): removed API versions.
			"_archived/cloud-controller-manager/persistent-volume-label-initializer-config.yaml schema/removed-api",
			"_archived/cockroachdb/cockroachdb-statefulset.yaml schema/removed-api",
			"_archived/newrelic-infrastructure/newrelic-infra-daemonset.yaml schema/removed-api",
			"_archived/podsecuritypolicy/rbac/policies.yaml schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/account-specified-hdd/storageclass-account-hdd.yaml schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/dedicated-hdd/storageclass-dedicated-hdd.yaml schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/shared-hdd/storageclass-shared-hdd.yaml schema/removed-api",
			"_archived/volumes/azure_disk/claim/blob-based-disk/shared-ssd/storageclass-shared-ssd.yaml schema/removed-api",
			"_archived/volumes/azure_disk/claim/managed-disk/managed-hdd/storageclass-managed-hdd.yaml schema/removed-api",
			"_archived/volumes/azure_disk/claim/managed-disk/managed-ssd/storageclass-managed-ssd.yaml schema/removed-api",
			"_archived/volumes/flexvolume/deploy/ds.yaml schema/removed-api",
			// Known (README): the kube-scheduler Policy is not an API object.
			"_archived/scheduler-policy/scheduler-policy-config-with-extender.json schema/unknown-kind",
			"_archived/scheduler-policy/scheduler-policy-config.json schema/unknown-kind",
			// Real problems the README does not list: protocol "tcp" (the
			// API accepts TCP, UDP, SCTP only), a "<ADD LUN ID Here>"
			// placeholder for an integer, StorageClass parameters written
			// into a pod's rbd volume, a misspelt protectionDomain, fields
			// StorageOS volumes do not have.
			"_archived/volumes/aws_ebs/aws-ebs-web.yaml schema/enum",
			"_archived/volumes/cinder/cinder-web.yaml schema/enum",
			"_archived/volumes/fibre_channel/fc.yaml schema/wrong-type",
			"_archived/volumes/rbd/rbd.yaml schema/unknown-field",
			"_archived/volumes/scaleio/pod.yaml schema/unknown-field",
			"_archived/volumes/storageos/storageos-pod.yaml schema/unknown-field",
			"_archived/volumes/storageos/storageos-pv.yaml schema/unknown-field",
		},
		"realworld/library": {
			// Known (README): the group-less legacy apiVersion v1.
			"official/3scale/imagestreams/apicast-gateway.json schema/unknown-kind",
			"official/amq/imagestreams/jboss-amq-63-rhel7.json schema/unknown-kind",
			"official/amq/templates/amq63-basic.json schema/unknown-kind",
			"official/amq/templates/amq63-persistent.json schema/unknown-kind",
			// Real problems the README does not list: Deployments converted
			// from DeploymentConfigs that kept DeploymentConfig fields
			// (recreateParams, triggers, a selector without matchLabels),
			// a container-level "capabilities" and a Service's
			// deprecatedPublicIPs, which apps/v1 and v1 do not define.
			"official/cakephp/templates/cakephp-mysql-example.json schema/unknown-field",
			"official/dancer/templates/dancer-mysql-example.json schema/unknown-field",
			"official/fis/templates/s2i-fuse713-spring-boot-2-camel-rest-3scale.json schema/unknown-field",
			"official/mysql/templates/mysql-ephemeral.json schema/unknown-field",
			"official/nodejs/templates/nodejs-example.json schema/unknown-field",
			"official/postgresql/templates/postgresql-ephemeral.json schema/unknown-field",
			"official/postgresql/templates/postgresql-persistent.json schema/unknown-field",
			"official/redis/templates/redis-ephemeral.json schema/unknown-field",
			"official/redis/templates/redis-persistent.json schema/unknown-field",
		},
		"realworld/podinfo":                      nil,
		"realworld/microservices-demo":           nil,
		"realworld/flux2-kustomize-helm-example": nil,
		"kubevirt-common-templates":              nil,
	}
	for dir, expected := range want {
		t.Run(dir, func(t *testing.T) {
			got := corpusFindings(t, filepath.Join(corpus, dir))
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
		})
	}
}
