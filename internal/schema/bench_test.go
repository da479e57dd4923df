package schema

import (
	"testing"
	"testing/fstest"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// BenchmarkValidateDeployment compares plumb's walk of the embedded schema
// with strict decoding into the k8s.io/api type (the other way Kubernetes'
// own libraries offer to validate a built-in kind without an API server),
// on the same Deployment. Strict decoding stops at the first error, knows
// no required fields and gives no field path for quantities; the walk
// reports them all.
func BenchmarkValidateDeployment(b *testing.B) {
	set := manifest.Load(fstest.MapFS{"d.yaml": {Data: []byte(deployment)}}, []string{"."}, manifest.LoadOptions{})
	objs, _ := set.Documents[0].Objects("")
	content := objs[0].Content
	s, err := loadBuiltin()
	if err != nil {
		b.Fatal(err)
	}
	t := s.lookup("apps/v1", "Deployment")
	noSecret := func(manifest.Path) bool { return false }
	b.Run("plumb-walk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ps := validateBuiltin(content, t, noSecret); len(ps) > 0 {
				b.Fatal(ps)
			}
		}
	})
	b.Run("strict-decoding", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var d appsv1.Deployment
			if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(content, &d, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
