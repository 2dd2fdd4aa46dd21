package bootstrap

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/gosh-term/gosh/internal/buildinfo"
)

// BinaryCacheEnv names the environment variable that overrides the default
// binary cache directory.
const BinaryCacheEnv = "GOSH_BINARY_CACHE"

// DefaultBinaryCache is where gosh looks for binaries for other platforms:
// $GOSH_BINARY_CACHE if set, else $XDG_CACHE_HOME/gosh/<version>, else
// ~/.cache/gosh/<version> (os.UserCacheDir). Files in it are named
// gosh-<goos>-<goarch>, e.g. gosh-linux-arm64.
func DefaultBinaryCache() string {
	if d := os.Getenv(BinaryCacheEnv); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "gosh", versionDirName())
}

// binaryFor picks the gosh binary to upload to a goos/goarch remote.
func binaryFor(cfg *Config, goos, goarch string) (string, error) {
	if cfg.RemoteBinary != "" {
		return cfg.RemoteBinary, nil
	}
	var looked []string
	if goos == runtime.GOOS && goarch == runtime.GOARCH {
		local := cfg.LocalBinary
		if local == "" {
			exe, err := os.Executable()
			if err == nil {
				local = exe
			}
		}
		if isFile(local) {
			return local, nil
		}
		looked = append(looked, local)
	}
	cache := cfg.BinaryCache
	if cache == "" {
		cache = DefaultBinaryCache()
	}
	if cache != "" {
		p := filepath.Join(cache, "gosh-"+goos+"-"+goarch)
		if isFile(p) {
			return p, nil
		}
		looked = append(looked, p)
	}
	return "", &NoBinaryError{GOOS: goos, GOARCH: goarch, Looked: looked}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// upload copies the binary for the remote's platform into the upload
// directory over a new session of rr's connection, and returns the remote
// path. The remote checks the SHA-256 before moving it into place.
func upload(ctx context.Context, rr *remoteRun, cfg *Config, unameS, unameM string) (string, error) {
	goos, goarch, ok := platform(unameS, unameM)
	if !ok {
		return "", fmt.Errorf("bootstrap: the remote (%s %s) has no usable gosh and gosh has no build for its platform", unameS, unameM)
	}
	path, err := binaryFor(cfg, goos, goarch)
	if err != nil {
		return "", err
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("bootstrap: reading %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("bootstrap: %w", err)
	}
	defer f.Close()
	cfg.logf("bootstrap: uploading %s (%s/%s, gosh %s, sha256 %s)", path, goos, goarch, buildinfo.Version, sum)
	fmt.Fprintf(cfg.stderr(), "gosh: no usable gosh on the remote; uploading gosh %s for %s/%s\n", buildinfo.Version, goos, goarch)
	command := uploadScript(sum)
	out, err := rr.run(ctx, command, f)
	if err != nil || out.uploaded == "" {
		se := serverError(command, out, err)
		return "", fmt.Errorf("bootstrap: uploading gosh to the remote failed: %w", se)
	}
	return out.uploaded, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
