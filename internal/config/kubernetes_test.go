package config

import (
	"strings"
	"testing"
)

func TestParseKubernetesVersion(t *testing.T) {
	for in, want := range map[string]string{"1.30": "v1.30.0", "v1.30": "v1.30.0", "v1.30.2": "v1.30.2", " 1.9.10 ": "v1.9.10"} {
		v, err := ParseKubernetesVersion(in)
		if err != nil || v.String() != want {
			t.Errorf("ParseKubernetesVersion(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"", "1", "2.0", "1.x", "1.30.2.1", "v1.-3", "1.030"} {
		if _, err := ParseKubernetesVersion(in); err == nil {
			t.Errorf("ParseKubernetesVersion(%q) accepted", in)
		}
	}
	if !(KubernetesVersion{1, 29, 9}).Less(KubernetesVersion{1, 30, 0}) || (KubernetesVersion{1, 30, 0}).Less(KubernetesVersion{1, 30, 0}) {
		t.Error("Less orders versions wrongly")
	}
}

func TestKubernetesVersionResolution(t *testing.T) {
	resolve := func(file string, args ...string) (*Config, error) { return resolveText(t, t.TempDir(), file, args...) }
	cfg, err := resolve("")
	if err != nil || cfg.KubernetesVersion != DefaultKubernetesVersion {
		t.Fatalf("default: %v, %v", cfg, err)
	}
	cfg, err = resolve("kubernetes_version: '1.29'\n")
	if err != nil || cfg.KubernetesVersion.String() != "v1.29.0" {
		t.Fatalf("file: %v, %v", cfg.KubernetesVersion, err)
	}
	cfg, err = resolve("kubernetes_version: '1.29'\n", "--kubernetes-version", "v1.31.4")
	if err != nil || cfg.KubernetesVersion.String() != "v1.31.4" {
		t.Fatalf("flag over file: %v, %v", cfg.KubernetesVersion, err)
	}
	_, err = resolve("fail_on: error\nkubernetes_version: 'one'\n")
	if err == nil || !strings.HasPrefix(err.Error(), ".plumb.yaml:2:21: ") {
		t.Fatalf("bad file value: %v", err)
	}
	_, err = resolve("", "--kubernetes-version", "2.1")
	if err == nil || !strings.Contains(err.Error(), "--kubernetes-version") {
		t.Fatalf("bad flag: %v", err)
	}
}
