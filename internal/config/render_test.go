package config

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestRenderKeys(t *testing.T) {
	f, err := ParseFile(".plumb.yaml", []byte(`targets:
  - overlays/*
  - clusters/prod
params:
  NAME: shop
  REPLICAS: "2"
template_params:
  fedora-server-small:
    NAME: vm1
`))
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("render", pflag.ContinueOnError)
	fl := BindInputFlags(fs)
	if err := fs.Parse([]string{"--param", "REPLICAS=3", "--param", "EMPTY=", "--allow-remote"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Resolve(f, fl, "/repo")
	if err != nil {
		t.Fatal(err)
	}
	rc := cfg.Render
	if len(rc.Targets) != 2 || rc.Targets[0].Pattern != "overlays/*" || rc.Targets[0].Line != 2 || rc.Targets[0].Column != 5 || rc.Targets[1].Line != 3 {
		t.Errorf("targets %+v", rc.Targets)
	}
	if v, ok := rc.Params["EMPTY"]; rc.Params["NAME"] != "shop" || rc.Params["REPLICAS"] != "3" || !ok || v != "" {
		t.Errorf("params %v (--param wins over the file)", rc.Params)
	}
	if rc.TemplateParams["fedora-server-small"]["NAME"] != "vm1" || !rc.AllowRemote {
		t.Errorf("template params %v, allow remote %v", rc.TemplateParams, rc.AllowRemote)
	}
}

func TestRenderKeyErrors(t *testing.T) {
	for in, want := range map[string]string{
		"targets: [\"\"]\n":                 "a targets entry is a directory or pattern",
		"targets:\n  - {dir: x}\n":          "a targets entry is a directory or pattern",
		"params: [a]\n":                     "c.yaml:1:9: params: the value is a list, want a mapping of keys to values",
		"template_params:\n  t: {X: [1]}\n": "c.yaml:2:10: template_params.t.X: the value is a list, want a string",
	} {
		if _, err := ParseFile("c.yaml", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
	fs := pflag.NewFlagSet("render", pflag.ContinueOnError)
	fl := BindInputFlags(fs)
	if err := fs.Parse([]string{"--param", "novalue", "--param", "=x"}); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(nil, fl, "/repo")
	if err == nil || !strings.Contains(err.Error(), `--param "novalue": want NAME=VALUE`) || !strings.Contains(err.Error(), `--param "=x"`) {
		t.Errorf("err %v", err)
	}
}
