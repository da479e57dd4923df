package manifest

import (
	"reflect"
	"testing"
)

func TestIsPlainValue(t *testing.T) {
	plain := []string{
		"true", "FALSE", "yes", "No", "on", "off", "0", "1", `"true"`,
		"/run/secrets/db-password", "/etc/oauth/client-secret", "./secrets/token", "../token", "~/.pgpass", "file:///etc/app/key",
		"$(DB_PASSWORD)", "${DB_PASSWORD}", "${DB_PASSWORD:-x}", "$DB_PASSWORD", "{{ .Values.password }}",
		"!env_var SONARR_API_KEY", "!secret db_password", "!ENV", "!env_var",
	}
	for _, v := range plain {
		if !IsPlainValue(v) {
			t.Errorf("IsPlainValue(%q) = false, want true", v)
		}
	}
	credentials := []string{
		"", "hunter2", "sk_live_x", "truely", "2", "/Xk9aB+q2/Lm=", "/abc", "/Ab/cd", "$a$b", "pa$$word",
		"!!str secret", "!Secret!", "C:\\secrets\\pw", "yes please", "/run/secrets/db password",
	}
	for _, v := range credentials {
		if IsPlainValue(v) {
			t.Errorf("IsPlainValue(%q) = true, want false", v)
		}
	}
}

// Values that are no credential are printed as they are; credentials next
// to them are redacted. A value that names a Secret the pod references is
// a Secret's name.
func TestMaskKeepsPlainValues(t *testing.T) {
	env := func(name, value string) any { return map[string]any{"name": name, "value": value} }
	in := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "app", "env": []any{
				env("MYSQL_ALLOW_EMPTY_PASSWORD", "true"),
				env("MYSQL_PASSWORD", "/run/secrets/mysql-password"),
				env("JGROUPS_ENCRYPT_SECRET", "eap7-app-secret"),
				env("SSO_SECRET", "s3cr3t"),
				env("DB_PASSWORD", "hunter2"),
			}}},
			"volumes": []any{map[string]any{"name": "ks", "secret": map[string]any{"secretName": "eap7-app-secret"}}},
		}}},
	}
	out := MaskSecretContent(in)
	list := out["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["env"].([]any)
	var got []string
	for _, e := range list {
		m := e.(map[string]any)
		got = append(got, m["name"].(string)+"="+m["value"].(string))
	}
	want := []string{
		"MYSQL_ALLOW_EMPTY_PASSWORD=true", "MYSQL_PASSWORD=/run/secrets/mysql-password",
		"JGROUPS_ENCRYPT_SECRET=eap7-app-secret", "SSO_SECRET=" + Redacted, "DB_PASSWORD=" + Redacted,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("masked env:\n got %v\nwant %v", got, want)
	}
}

// Inside a ConfigMap's files plumb redacts the credentials only: not a
// commented-out line, not a reference written as a YAML tag, not the word
// after the value.
func TestRedactCredentialTextLeavesCommentsAndReferences(t *testing.T) {
	cases := map[string]string{
		"sonarr:\n  api_key: !env_var SONARR_API_KEY\n":                   "sonarr:\n  api_key: !env_var SONARR_API_KEY\n",
		"# password: changeme\npassword: hunter2 # set by ops\n":          "# password: changeme\npassword: <redacted> # set by ops\n",
		"; [auth] token = example\n[auth]\ntoken = abc123\n":              "; [auth] token = example\n[auth]\ntoken = <redacted>\n",
		"// \"password\": \"x\"\n{\"password\": \"hunter2\", \"a\": 1}\n": "// \"password\": \"x\"\n{\"password\": \"<redacted>\", \"a\": 1}\n",
		"db.password=/run/secrets/db\nadmin.password=true\n":              "db.password=/run/secrets/db\nadmin.password=true\n",
	}
	for in, want := range cases {
		if got, _ := RedactCredentialText(in); got != want {
			t.Errorf("RedactCredentialText(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
