package manifest

import (
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
)

func TestParseCacheSharesUnchangedFiles(t *testing.T) {
	head, base := fstest.MapFS{}, fstest.MapFS{}
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("d/f%02d.yaml", i)
		content := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n", i)
		base[name] = &fstest.MapFile{Data: []byte(content)}
		if i%4 == 0 {
			content += "data: {changed: \"yes\"}\n"
		}
		head[name] = &fstest.MapFile{Data: []byte(content)}
	}
	base["d/broken.yaml"] = &fstest.MapFile{Data: []byte("a: [\n")}
	head["d/broken.yaml"] = &fstest.MapFile{Data: []byte("a: [\n")}

	cache := NewParseCache()
	var h, b *Set
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h = Load(head, []string{"."}, LoadOptions{Cache: cache}) }()
	go func() { defer wg.Done(); b = Load(base, []string{"."}, LoadOptions{Cache: cache}) }()
	wg.Wait()

	if len(h.Documents) != 40 || len(b.Documents) != 40 || len(h.Problems) != 1 || len(b.Problems) != 1 {
		t.Fatalf("head %d docs %v, base %d docs %v", len(h.Documents), h.Problems, len(b.Documents), b.Problems)
	}
	for i := range h.Documents {
		shared := h.Documents[i] == b.Documents[i]
		if want := i%4 != 0; shared != want {
			t.Errorf("%s: shared %v, want %v", h.Documents[i].File, shared, want)
		}
	}
	// The cached result is what a plain load gives.
	plain := Load(head, []string{"."}, LoadOptions{})
	for i := range plain.Documents {
		if fmt.Sprint(plain.Documents[i].Value) != fmt.Sprint(h.Documents[i].Value) {
			t.Errorf("%s differs from an uncached load", plain.Documents[i].File)
		}
	}
	if plain.Problems[0].Message != h.Problems[0].Message {
		t.Errorf("problems differ: %v %v", plain.Problems, h.Problems)
	}
}
