//go:build unix

package bootstrap

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHTTPGet downloads with curl over https on loopback: the body
// arrives whole, through a redirect too; an HTTP error is one line naming
// the URL and the status, not a short body; too many redirects stop;
// plain http, and a redirect to it, are refused unless allowed; a server
// whose certificate is not trusted is refused.
func TestHTTPGet(t *testing.T) {
	body := strings.Repeat("gosh release bytes\n", 10000)
	var plainURL string
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/file":
			io.WriteString(w, body)
		case "/moved":
			http.Redirect(w, r, "/file", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/to-plain":
			http.Redirect(w, r, plainURL+"/file", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
	plain := httptest.NewServer(handler)
	t.Cleanup(plain.Close)
	plainURL = plain.URL // before srv, whose handler reads it, starts
	srv := httptest.NewTLSServer(handler)
	t.Cleanup(srv.Close)
	o := getOptions{caFile: caFile(t, srv)}
	get := func(url string, o getOptions) (string, error) {
		r, err := httpGet(testContext(t), url, o)
		if err != nil {
			return "", err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return string(b), err
	}
	for _, path := range []string{"/file", "/moved"} {
		if got, err := get(srv.URL+path, o); err != nil || got != body {
			t.Errorf("%s: read %d bytes, %v; want the %d-byte body", path, len(got), err, len(body))
		}
	}
	for _, tc := range []struct {
		url  string
		o    getOptions
		want string
	}{
		{srv.URL + "/missing", o, srv.URL + "/missing: The requested URL returned error: 404"},
		{srv.URL + "/loop", o, srv.URL + "/loop: stopped after 10 redirects"},
		{plain.URL + "/file", o, "refusing " + plain.URL + "/file: release downloads take https only"},
		{srv.URL + "/to-plain", o, "refusing the redirect from " + srv.URL + "/to-plain to a URL that is not https"},
		{srv.URL + "/file", getOptions{}, srv.URL + "/file: "}, // the system's CAs do not know the test's
	} {
		_, err := get(tc.url, tc.o)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line starting %q", tc.url, err, tc.want)
		}
	}
	if got, err := get(plain.URL+"/file", getOptions{allowHTTP: true}); err != nil || got != body {
		t.Errorf("plain http, allowed: read %d bytes, %v", len(got), err)
	}
}

// TestHTTPGetClose: closing a download in progress stops curl.
func TestHTTPGetClose(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000000")
		for {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			default:
			}
			if _, err := w.Write(make([]byte, 4096)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	r, err := httpGet(testContext(t), srv.URL+"/endless", getOptions{caFile: caFile(t, srv)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, make([]byte, 10000)); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { r.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not stop curl")
	}
	if st := r.(*getStream).cmd.ProcessState; st == nil {
		t.Error("curl was not reaped")
	}
}

// TestFetchReleaseNoCurl: without curl, fetching a release fails with one
// error that says what to install and how to do without.
func TestFetchReleaseNoCurl(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FetchRelease(context.Background(), ReleaseSource{URL: "https://example.invalid/r", Keys: releaseTestKeys(t)}, "linux", "arm64", t.TempDir())
	var re *ReleaseError
	if !errors.As(err, &re) || !errors.Is(err, errNoCurl) {
		t.Fatalf("FetchRelease = %v, want a ReleaseError wrapping errNoCurl", err)
	}
	for _, want := range []string{"needs curl", "gosh server install --os linux --arch arm64 --from DIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestHTTPGetNotHTTP: only http and https URLs are fetched (a URL is
// never taken for one of curl's options).
func TestHTTPGetNotHTTP(t *testing.T) {
	for _, url := range []string{"--output=/tmp/x", "file:///etc/passwd", "ftp://example.com/x"} {
		if r, err := httpGet(context.Background(), url, getOptions{allowHTTP: true}); err == nil {
			r.Close()
			t.Errorf("httpGet(%q) ran curl", url)
		}
	}
}
