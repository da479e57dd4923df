package render

import (
	"reflect"
	"testing"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/cache/cachetest"
)

// The origin of a cached kustomize build keeps every field krusty writes,
// whatever fields krustyOrigin gains.
func TestOriginCodecKeepsEveryField(t *testing.T) {
	var o krustyOrigin
	(&cachetest.Filler{}).Fill(&o)
	e := &cache.Encoder{}
	encodeOrigin(e, &o)
	d := cache.NewDecoder(e.Bytes())
	out := decodeOrigin(d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if out == nil || !reflect.DeepEqual(o, *out) {
		t.Errorf("the origin lost fields in the cache codec (write them in encodeOrigin and decodeOrigin):\n in: %+v\nout: %+v", o, out)
	}
}
