package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

const token = "ghs_Tok3nValue+With/Odd=Chars<&>0123456789"

// encodedForms are the ways a token reaches text, computed here without
// Forms: each must be gone after String.
func encodedForms(t string) map[string]string {
	j, _ := json.Marshal(t)
	out := map[string]string{
		"raw":             t,
		"json":            strings.Trim(string(j), `"`),
		"query-escaped":   url.QueryEscape(t),
		"path-escaped":    url.PathEscape(t),
		"basic auth":      base64.StdEncoding.EncodeToString([]byte("x-access-token:" + t)),
		"basic auth, URL": url.QueryEscape(base64.StdEncoding.EncodeToString([]byte("x-access-token:" + t))),
	}
	for _, enc := range []struct {
		name string
		e    *base64.Encoding
	}{{"std", base64.StdEncoding}, {"url", base64.URLEncoding}} {
		// Inside a longer blob, at each alignment.
		for _, prefix := range []string{"", "a", "ab", "abc", "abcd"} {
			out[enc.name+" base64 after "+prefix] = enc.e.EncodeToString([]byte(prefix + t + "tail"))
		}
	}
	return out
}

func TestStringRedactsEveryForm(t *testing.T) {
	s := New(token)
	for name, f := range encodedForms(token) {
		got := s.String("before " + f + " after")
		if !strings.Contains(got, Mask) || !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") {
			t.Errorf("%s: %q", name, got)
		}
		// Of a base64 blob, the characters at the ends depend on its
		// other bytes (at most 4 before the token, or "x-access-token:",
		// and "tail" after it): nothing of the rest survives.
		lead := 6
		if strings.HasPrefix(name, "basic auth") {
			lead = len(base64.StdEncoding.EncodeToString([]byte("x-access-token:")))
		}
		middle := f[lead : len(f)-8]
		for i := 0; i+8 <= len(middle); i++ {
			if strings.Contains(got, middle[i:i+8]) {
				t.Errorf("%s: %q survives in %q", name, middle[i:i+8], got)
				break
			}
		}
	}
}

func TestBasicCredentialsAsCheckoutWritesThem(t *testing.T) {
	s := New(token)
	line := "\textraheader = AUTHORIZATION: basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token)) + "\n"
	got := s.String(line)
	// The characters before the core depend on "x-access-token:" only.
	if strings.Contains(got, base64.StdEncoding.EncodeToString([]byte(token))[2:20]) || !strings.Contains(got, Mask) {
		t.Errorf("%q", got)
	}
	if !strings.HasPrefix(got, "\textraheader = AUTHORIZATION: basic ") {
		t.Errorf("the rest of the line is lost: %q", got)
	}
}

func TestShortAndEmptyTokensRedactNothing(t *testing.T) {
	s := New("", "  ", "x", "abc1234")
	if !s.Empty() {
		t.Fatalf("short tokens make forms: %q", s.forms)
	}
	text := "abc1234 x and a report"
	if got := s.String(text); got != text {
		t.Errorf("%q", got)
	}
	var nilSet *Set
	if got := nilSet.String(text); got != text || nilSet.Contains([]byte(text)) {
		t.Errorf("nil set: %q", got)
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{"INPUT_TOKEN": "input-token-value", "GITHUB_TOKEN": "github-token-value", "GH_TOKEN": "gh-token-value",
		"ACTIONS_RUNTIME_TOKEN": "runtime-token-value", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "id-request-value", "HOME": "/home/runner/work"}
	s := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	got := s.String(strings.Join([]string{env["INPUT_TOKEN"], env["GITHUB_TOKEN"], env["GH_TOKEN"], env["ACTIONS_RUNTIME_TOKEN"], env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"], env["HOME"]}, " "))
	if got != "*** *** *** *** *** /home/runner/work" {
		t.Errorf("%q", got)
	}
}

func TestOverlappingTokensAreMaskedWhole(t *testing.T) {
	s := New("abcdefgh12", "12345678xy")
	if got := s.String("<abcdefgh12345678xy>"); got != "<***>" {
		t.Errorf("%q", got)
	}
}

func TestWriterHandlesATokenSplitAcrossWrites(t *testing.T) {
	s := New(token)
	text := "line one\nthe token " + token + " and " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token)) + "\nlast " + token
	for _, size := range []int{1, 2, 3, 7, 16, len(text)} {
		var out bytes.Buffer
		w := s.Writer(&out)
		for i := 0; i < len(text); i += size {
			if _, err := w.Write([]byte(text[i:min(i+size, len(text))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := s.String(text); out.String() != want {
			t.Errorf("writes of %d bytes: %q, want %q", size, out.String(), want)
		}
		if strings.Contains(out.String(), token) {
			t.Errorf("writes of %d bytes: %q", size, out.String())
		}
	}
}

func TestWriterPassesLinesAtOnce(t *testing.T) {
	s := New(token)
	var out bytes.Buffer
	w := s.Writer(&out)
	if _, err := io.WriteString(w, "a whole line\nand a part"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "a whole line\n" {
		t.Errorf("%q", out.String())
	}
	// A long line without a break is held back by the longest form only.
	if _, err := io.WriteString(w, strings.Repeat("x", 1000)); err != nil {
		t.Fatal(err)
	}
	if held := len("a whole line\nand a part") + 1000 - out.Len(); held != s.maxLen-1 {
		t.Errorf("held back %d bytes, want %d", held, s.maxLen-1)
	}
	if _, err := io.WriteString(w.Unredacted(), "::add-mask::"+token+"\n"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "xxx::add-mask::"+token+"\n") {
		t.Errorf("the unredacted line is not after what was held back: %q", out.String()[out.Len()-80:])
	}
}

func TestWriterWithoutTokensIsThePlainWriter(t *testing.T) {
	var out bytes.Buffer
	w := New().Writer(&out)
	if _, err := io.WriteString(w, "no break"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "no break" {
		t.Errorf("%q", out.String())
	}
}

func TestTransportRedactsBodiesNotHeaders(t *testing.T) {
	var gotBody, gotAuth string
	var gotLen int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody, gotAuth, gotLen = string(b), r.Header.Get("Authorization"), r.ContentLength
	}))
	defer srv.Close()
	s := New(token)
	c := &http.Client{Transport: s.Transport(nil)}
	body, _ := json.Marshal(map[string]string{"body": "the token is " + token})
	req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotBody != `{"body":"the token is ***"}` || gotLen != int64(len(gotBody)) {
		t.Errorf("body %q (length %d)", gotBody, gotLen)
	}
	if gotAuth != "Bearer "+token {
		t.Errorf("the Authorization header was changed: %q", gotAuth)
	}
	if New().Transport(nil) != http.DefaultTransport {
		t.Error("an empty set wraps the transport")
	}
}

// BenchmarkString is the cost of a report's worth of text with the tokens
// of a CI job (five).
func BenchmarkString(b *testing.B) {
	s := New("ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
		strings.Repeat("eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9", 30), "idtokenrequest0123456789abcdef", "gho_0123456789abcdefghijklmnopqrstuvwxyz")
	text := strings.Repeat("app/deploy.yaml:12:7: error: the container web has no memory limit [check/D10001]\n", 10000)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		s.String(text)
	}
}

// find looks at every step-th position only: a form is found wherever it
// starts and ends, also at the text's ends, for the shortest token too.
func TestFormsAreFoundAtEveryOffset(t *testing.T) {
	for _, tok := range []string{"12345678", token} {
		s := New(tok)
		for before := 0; before <= 2*s.step+1; before++ {
			for _, after := range []string{"", "y", "yyyyyyyyyyyyyyyyyyyy"} {
				text := strings.Repeat("x", before) + tok + after
				if got, want := s.String(text), strings.Repeat("x", before)+Mask+after; got != want {
					t.Errorf("%q: %q, want %q", text, got, want)
				}
				if !s.Contains([]byte(text)) {
					t.Errorf("Contains(%q) is false", text)
				}
			}
		}
	}
}
