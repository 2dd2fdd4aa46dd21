package bootstrap

import (
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gosh-term/gosh/internal/e2etest"
)

// afterTests run once every test has finished.
var afterTests []func()

// echoArgsEnv makes the test binary print its arguments, NUL-terminated,
// and exit: a ProxyCommand whose argument splitting a test can check on
// every platform (through /bin/sh on Unix, CommandLineToArgvW on Windows).
const echoArgsEnv = "GOSH_TEST_ECHO_ARGS"

// proxyVariables are the proxy variables curl honours: TestMain unsets
// them, for the tests download from loopback servers only. (For the whole
// test binary, not per test: t.Setenv rules out t.Parallel.)
var proxyVariables = []string{"http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"}

func TestMain(m *testing.M) {
	if os.Getenv(echoArgsEnv) == "1" {
		fmt.Print(strings.Join(os.Args[1:], "\x00") + "\x00")
		os.Exit(0)
	}
	// No test may download from the real release: a test that forgets to
	// set Config.Release gets a refused connection on loopback.
	os.Setenv(ReleaseURLEnv, "https://127.0.0.1:9/no-release")
	// Nor through a proxy: the release servers are on loopback.
	for _, v := range proxyVariables {
		os.Unsetenv(v)
	}
	// Uploads compress at the fastest level: the level changes nothing the
	// tests check, and compress/flate is twentyfold slower under the race
	// detector (TestUploadTime1Mbps sets the levels it measures).
	uploadGzipLevel = gzip.BestSpeed
	// Nor write to the user's binary cache (where uploads leave their gzip
	// streams) when it leaves Config.BinaryCache empty.
	if cache, err := os.MkdirTemp("", "gosh-test-cache-"); err == nil {
		os.Setenv(BinaryCacheEnv, cache)
		afterTests = append(afterTests, func() { os.RemoveAll(cache) })
	}
	// The end-to-end tests that run in parallel drive a real sshd and
	// servers in real time and mostly wait.
	e2etest.DefaultParallel(8)
	code := m.Run()
	for _, f := range afterTests {
		f()
	}
	os.Exit(code)
}
