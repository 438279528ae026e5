package fetch_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcl-lang/flux-kcl-controller/kcl"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/fetch"
	"github.com/kcl-lang/flux-kcl-controller/kcl/mod/registrytest"
)

const program = `import k8s.api.apps.v1 as apps

deploy = apps.Deployment {
    metadata.name = "nginx"
    spec = {
        selector.matchLabels.app = "nginx"
        template.spec.containers = [{name = "nginx", image = "nginx:1.25"}]
    }
}
`

const wantYAML = `deploy:
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: nginx
  spec:
    replicas: 1
    selector:
      matchLabels:
        app: nginx
    template:
      spec:
        containers:
        - name: nginx
          image: nginx:1.25
`

func newStore(t *testing.T, reg *registrytest.Server, edit func(*fetch.Options)) *fetch.Store {
	t.Helper()
	opts := fetch.Options{
		CacheDir: t.TempDir(),
		Mirrors:  []fetch.Mirror{{From: "ghcr.io/kcl-lang", To: reg.Host + "/kcl-lang"}},
		Retries:  1,
	}
	if edit != nil {
		edit(&opts)
	}
	s, err := fetch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeProgram(t *testing.T, files map[string]string) string {
	return registrytest.WriteFiles(t, files)
}

func TestRegistryPackageThroughMirrorCompiles(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	store := newStore(t, reg, nil)
	dir := writeProgram(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"main.k":  program,
	})
	session := store.Session(nil)
	defer session.Release()
	res, err := mod.Resolve(context.Background(), dir, mod.Options{Fetcher: session})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 1 || res.Packages[0].Name != "k8s" || res.Packages[0].Version != "1.29" || res.Packages[0].Locked ||
		res.Packages[0].Source != "oci://ghcr.io/kcl-lang/k8s:1.29" || !strings.HasPrefix(res.Packages[0].Digest, "sha256:") {
		t.Fatalf("resolved %+v", res.Packages)
	}
	if res.Reproducible() {
		t.Error("an unlocked tag is not reproducible")
	}
	out, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, ExternalPkgs: res.ExternalPkgs()})
	if err != nil {
		t.Fatal(err)
	}
	if string(out.YAML) != wantYAML {
		t.Fatalf("got\n%s\nwant\n%s", out.YAML, wantYAML)
	}
}

func TestLockPinsAndVerifiesTheSum(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	sum, err := mod.Sum(registrytest.WriteFiles(t, registrytest.K8sLike("1.29")))
	if err != nil {
		t.Fatal(err)
	}
	lock := func(sum string) string {
		return "[dependencies]\n  [dependencies.k8s]\n    name = \"k8s\"\n    full_name = \"k8s_1.29\"\n    version = \"1.29\"\n    sum = \"" + sum +
			"\"\n    reg = \"ghcr.io\"\n    repo = \"kcl-lang/k8s\"\n    oci_tag = \"1.29\"\n"
	}
	files := map[string]string{
		"kcl.mod":      "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"kcl.mod.lock": lock(sum),
		"main.k":       program,
	}
	store := newStore(t, reg, func(o *fetch.Options) { o.TagTTL = -1 }) // see the re-push at once
	session := store.Session(nil)
	defer session.Release()
	res, err := mod.Resolve(context.Background(), writeProgram(t, files), mod.Options{Fetcher: session})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Packages[0].Locked || res.Packages[0].Sum != sum || !res.Reproducible() {
		t.Fatalf("resolved %+v, want locked with sum %s", res.Packages[0], sum)
	}

	// The registry now serves different contents under the locked tag.
	tampered := registrytest.K8sLike("1.29")
	tampered["api/core/v1/container.k"] += "\nschema Backdoor:\n    x: int = 1\n"
	reg.Push(t, "kcl-lang/k8s:1.29", tampered)
	files["kcl.mod.lock"] = lock(sum)
	_, err = mod.Resolve(context.Background(), writeProgram(t, files), mod.Options{Fetcher: store.Session(nil)})
	var ve *mod.VerificationError
	if !errors.As(err, &ve) || !errors.Is(err, mod.ErrVerification) || ve.Want != sum || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("got %v, want a checksum mismatch", err)
	}
}

func TestLockOutOfDateIsRefused(t *testing.T) {
	dir := writeProgram(t, map[string]string{
		"kcl.mod":      "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.30\"\n",
		"kcl.mod.lock": "[dependencies]\n  [dependencies.k8s]\n    name = \"k8s\"\n    version = \"1.29\"\n    oci_tag = \"1.29\"\n",
	})
	_, err := mod.Resolve(context.Background(), dir, mod.Options{Fetcher: noNetwork{}})
	if !errors.Is(err, mod.ErrInvalid) || !strings.Contains(err.Error(), "out of date") {
		t.Fatalf("got %v", err)
	}
}

func TestCredentialsAreNeededAndNotShared(t *testing.T) {
	reg := registrytest.StartWithAuth(t, "tenant-a", "s3cret-pass")
	reg.Push(t, "kcl-lang/private:0.1.0", map[string]string{
		"kcl.mod": "[package]\nname = \"private\"\nversion = \"0.1.0\"\n",
		"main.k":  "team = \"a\"\n",
	})
	store := newStore(t, reg, nil)
	dir := writeProgram(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nprivate = \"0.1.0\"\n",
		"main.k":  "import private\nteam = private.team\n",
	})
	creds, err := fetch.ParseDockerConfig(reg.DockerConfig())
	if err != nil {
		t.Fatal(err)
	}
	a := store.Session(creds)
	defer a.Release()
	if _, err := mod.Resolve(context.Background(), dir, mod.Options{Fetcher: a}); err != nil {
		t.Fatalf("with credentials: %v", err)
	}
	// The package is in the shared cache now; another tenant still cannot use it.
	_, err = mod.Resolve(context.Background(), dir, mod.Options{Fetcher: store.Session(nil)})
	if !errors.Is(err, fetch.ErrUnauthorized) {
		t.Fatalf("without credentials: got %v, want ErrUnauthorized", err)
	}
	wrong, _ := fetch.ParseDockerConfig(registrytest.DockerConfig(reg.Host, "tenant-a", "guess"))
	_, err = mod.Resolve(context.Background(), dir, mod.Options{Fetcher: store.Session(wrong)})
	if !errors.Is(err, fetch.ErrUnauthorized) || strings.Contains(err.Error(), "guess") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("wrong credentials: got %v", err)
	}
	if st := store.Stats(); st.Misses != 1 {
		t.Fatalf("stats %+v: one download expected", st)
	}
}

func TestMissingPackageAndUnreachableRegistry(t *testing.T) {
	reg := registrytest.Start(t)
	store := newStore(t, reg, nil)
	dir := writeProgram(t, map[string]string{"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"9.99\"\n"})
	_, err := mod.Resolve(context.Background(), dir, mod.Options{Fetcher: store.Session(nil)})
	if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "dependency k8s (oci://ghcr.io/kcl-lang/k8s:9.99)") {
		t.Fatalf("missing: got %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := lis.Addr().String()
	lis.Close()
	store = newStore(t, reg, func(o *fetch.Options) {
		o.Mirrors = []fetch.Mirror{{From: "ghcr.io/kcl-lang", To: closed + "/kcl-lang"}}
	})
	_, err = mod.Resolve(context.Background(), dir, mod.Options{Fetcher: store.Session(nil)})
	if err == nil || errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), closed) {
		t.Fatalf("unreachable: got %v", err)
	}
}

func TestVendoredPackagesNeedNoNetwork(t *testing.T) {
	files := map[string]string{
		"kcl.mod":      "[package]\nname = \"app\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"kcl.mod.lock": "[dependencies]\n  [dependencies.k8s]\n    name = \"k8s\"\n    full_name = \"k8s_1.29\"\n    version = \"1.29\"\n",
		"main.k":       program,
	}
	for name, content := range registrytest.K8sLike("1.29") {
		files["vendor/k8s_1.29/"+name] = content
	}
	dir := writeProgram(t, files)
	res, err := mod.Resolve(context.Background(), dir, mod.Options{Vendor: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Packages[0].Vendored || res.Packages[0].Source != "vendor/k8s_1.29" {
		t.Fatalf("resolved %+v", res.Packages)
	}
	out, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, ExternalPkgs: res.ExternalPkgs()})
	if err != nil || string(out.YAML) != wantYAML {
		t.Fatalf("got %v\n%s", err, out.YAML)
	}
	os.RemoveAll(filepath.Join(dir, "vendor"))
	if _, err := mod.Resolve(context.Background(), dir, mod.Options{Vendor: true}); !errors.Is(err, mod.ErrNotVendored) {
		t.Fatalf("got %v, want ErrNotVendored", err)
	}
}

func TestCacheSurvivesARestartAndIsBounded(t *testing.T) {
	reg := registrytest.Start(t)
	for _, v := range []string{"1.28", "1.29"} {
		reg.Push(t, "kcl-lang/k8s:"+v, registrytest.K8sLike(v))
	}
	cacheDir := t.TempDir()
	open := func(max int64) *fetch.Store {
		return newStore(t, reg, func(o *fetch.Options) { o.CacheDir, o.MaxCacheBytes = cacheDir, max })
	}
	fetchVersion := func(s *fetch.Store, v string) {
		t.Helper()
		se := s.Session(nil)
		defer se.Release()
		if _, err := se.Fetch(context.Background(), mod.Source{Kind: mod.OCISource, Registry: "ghcr.io", Repository: "kcl-lang/k8s", Tag: v}); err != nil {
			t.Fatal(err)
		}
	}
	s := open(0)
	fetchVersion(s, "1.29")
	s = open(0)
	fetchVersion(s, "1.29")
	if st := s.Stats(); st.Hits != 1 || st.Misses != 0 {
		t.Fatalf("after restart: %+v, want a hit", st)
	}
	one := s.Stats().Bytes
	s = open(one) // room for one package
	fetchVersion(s, "1.28")
	if st := s.Stats(); st.Packages != 1 || st.Bytes > one+one/2 {
		t.Fatalf("bounded cache holds %+v", st)
	}
}

type noNetwork struct{}

func (noNetwork) Fetch(context.Context, mod.Source) (*mod.Fetched, error) {
	return nil, errors.New("no network in this test")
}

// An internal registry with its own certificate authority: refused without
// the CA, trusted with --kcl-registry-ca-file.
func TestCustomCertificateAuthority(t *testing.T) {
	reg := registrytest.StartTLS(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	src := mod.Source{Kind: mod.OCISource, Registry: "ghcr.io", Repository: "kcl-lang/k8s", Tag: "1.29"}
	untrusted := newStore(t, reg, nil).Session(nil)
	if _, err := untrusted.Fetch(context.Background(), src); err == nil {
		t.Fatal("a registry of an unknown authority was trusted")
	}
	trusted := newStore(t, reg, func(o *fetch.Options) { o.CAFile = reg.CAFile }).Session(nil)
	defer trusted.Release()
	if _, err := trusted.Fetch(context.Background(), src); err != nil {
		t.Fatalf("with the CA: %v", err)
	}
}

// A registry package depending on another one: both are fetched, and the
// program imports the one it declares.
func TestTransitiveRegistryPackages(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	reg.Push(t, "kcl-lang/web:0.2.0", map[string]string{
		"kcl.mod": "[package]\nname = \"web\"\nversion = \"0.2.0\"\n\n[dependencies]\nk8s = \"1.29\"\n",
		"main.k":  "import k8s.api.core.v1\n\nschema App:\n    name: str\n    container: v1.Container = v1.Container {name = name, image = \"nginx:1.25\"}\n",
	})
	store := newStore(t, reg, nil)
	dir := writeProgram(t, map[string]string{
		"kcl.mod": "[package]\nname = \"app\"\n\n[dependencies]\nweb = \"0.2.0\"\n",
		"main.k":  "import web\n\napp = web.App {name = \"front\"}\n",
	})
	se := store.Session(nil)
	defer se.Release()
	res, err := mod.Resolve(context.Background(), dir, mod.Options{Fetcher: se})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 2 || res.Packages[0].Name != "k8s" || res.Packages[1].Name != "web" {
		t.Fatalf("resolved %+v", res.Packages)
	}
	out, err := kcl.Run(context.Background(), kcl.Options{WorkDir: dir, ExternalPkgs: res.ExternalPkgs()})
	if err != nil {
		t.Fatal(err)
	}
	if want := "app:\n  name: front\n  container:\n    name: front\n    image: nginx:1.25\n"; string(out.YAML) != want {
		t.Fatalf("got\n%s", out.YAML)
	}
}

// Concurrent compilations of one package download it once.
func TestConcurrentFetchesDownloadOnce(t *testing.T) {
	reg := registrytest.Start(t)
	reg.Push(t, "kcl-lang/k8s:1.29", registrytest.K8sLike("1.29"))
	store := newStore(t, reg, nil)
	src := mod.Source{Kind: mod.OCISource, Registry: "ghcr.io", Repository: "kcl-lang/k8s", Tag: "1.29"}
	errs := make(chan error, 20)
	dirs := make(chan string, 20)
	for i := 0; i < 20; i++ {
		go func() {
			se := store.Session(nil)
			defer se.Release()
			got, err := se.Fetch(context.Background(), src)
			if err == nil {
				dirs <- got.Dir
			}
			errs <- err
		}()
	}
	for i := 0; i < 20; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(dirs)
	first := <-dirs
	for d := range dirs {
		if d != first {
			t.Fatalf("two folders for one digest: %s and %s", first, d)
		}
	}
	if st := store.Stats(); st.Misses != 1 || st.Hits != 19 {
		t.Fatalf("stats %+v", st)
	}
}
