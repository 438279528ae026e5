package natspermissions_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/kcl-lang/flux-kcl-controller/internal/natsconn"
	"github.com/kcl-lang/flux-kcl-controller/internal/reconcilerequest"
	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
	"github.com/kcl-lang/flux-kcl-controller/services/applier/lease"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/natsserver"
	"github.com/kcl-lang/flux-kcl-controller/test/harness/pki"
)

// securedServer is a nats-server started from RenderServerConfig's output, and the
// client configurations of the two identities of one shard.
type securedServer struct {
	shard            shard.Name
	server           *natsserver.Server
	watcher, applier natsconn.Config
	anonymous        natsconn.Config // TLS but no credentials
}

// startSecured renders the configuration (watcher with user/password, applier with an
// NKey, TLS with client certificates) and starts the real server on it.
func startSecured(t *testing.T, driftRequests bool) securedServer {
	return startSecuredShard(t, driftRequests, "")
}

// startSecuredShard is startSecured with the users of shard s.
func startSecuredShard(t *testing.T, driftRequests bool, s shard.Name) securedServer {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	pub, _ := kp.PublicKey()

	ca := pki.NewCA(t, "nats CA")
	serverCert := ca.Issue(t, "nats", "localhost", "127.0.0.1")
	clientCert := ca.Issue(t, "flux-kcl-client")

	conf, err := natsconn.RenderServerConfig(natsconn.ServerConfig{
		Shard:                s,
		Watcher:              natsconn.User{Name: "watcher", Password: "watcher-secret"},
		Applier:              natsconn.User{NKey: pub},
		ApplierDriftRequests: driftRequests,
		TLS:                  &natsconn.ServerTLS{CertFile: serverCert.Cert, KeyFile: serverCert.Key, CAFile: serverCert.CA, Verify: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := natsserver.Start(natsserver.Options{ConfigFile: write("nats.conf", conf)})
	if err != nil {
		t.Fatalf("%v\n%s", err, conf)
	}
	t.Cleanup(srv.Stop)

	tlsFiles := natsconn.Config{URL: srv.URL(), TLSCAFile: clientCert.CA, TLSCertFile: clientCert.Cert, TLSKeyFile: clientCert.Key}
	ss := securedServer{shard: s, server: srv, watcher: tlsFiles, applier: tlsFiles, anonymous: tlsFiles}
	ss.watcher.UserFile = write("user", "watcher\n")
	ss.watcher.PasswordFile = write("password", "watcher-secret\n")
	ss.applier.NKeySeedFile = write("seed", string(seed))
	return ss
}

func connect(t *testing.T, c natsconn.Config, identity string, s shard.Name) (*nats.Conn, <-chan error) {
	t.Helper()
	asyncErrs := make(chan error, 100)
	nc, err := c.Connect(identity, s, nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		select {
		case asyncErrs <- err:
		default:
		}
	}))
	if err != nil {
		t.Fatalf("connecting as %s: %v", identity, err)
	}
	t.Cleanup(nc.Close)
	return nc, asyncErrs
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestNATSRefusesClientsWithoutCredentials(t *testing.T) {
	s := startSecured(t, true)
	if _, err := s.anonymous.Connect("nobody", ""); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("a client with a certificate but no credentials connected: %v", err)
	}
	wrong := s.watcher
	wrong.PasswordFile = filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(wrong.PasswordFile, []byte("guess"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Connect(natsconn.WatcherIdentity, ""); err == nil {
		t.Fatal("a wrong password connected")
	}
	noTLS := s.watcher
	noTLS.TLSCAFile, noTLS.TLSCertFile, noTLS.TLSKeyFile = "", "", ""
	if _, err := noTLS.Connect(natsconn.WatcherIdentity, ""); err == nil {
		t.Fatal("a client without TLS connected to a server that requires it")
	}
	noClientCert := s.watcher
	noClientCert.TLSCertFile, noClientCert.TLSKeyFile = "", ""
	if _, err := noClientCert.Connect(natsconn.WatcherIdentity, ""); err == nil {
		t.Fatal("a client without a certificate connected to a server that verifies them")
	}
}

func TestWatcherPublishesButCannotConsume(t *testing.T) {
	s := startSecured(t, true)
	ctx := ctxT(t)
	wc, werrs := connect(t, s.watcher, natsconn.WatcherIdentity, "")
	wjs, err := jetstream.New(wc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reconcilerequest.EnsureStream(ctx, wjs, "", reconcilerequest.WithMemoryStorage()); err != nil {
		t.Fatalf("watcher ensuring the stream: %v", err)
	}
	req := reconcilerequest.Request{Namespace: "default", Name: "demo", Reason: "Created"}
	if _, err := reconcilerequest.NewPublisher(wjs, "").Publish(ctx, req, "uid/generation/1"); err != nil {
		t.Fatalf("watcher publishing: %v", err)
	}

	// Everything that would read the requests is denied.
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := reconcilerequest.EnsureConsumer(short, wjs, ""); err == nil {
		t.Fatal("the watcher created the appliers' consumer")
	}
	if _, err := wjs.Stream(short, shard.KeyValueStream(shard.Name("").LeaseBucket())); err == nil {
		t.Fatal("the watcher read the lease bucket")
	}
	for _, subject := range []string{shard.Name("").SubjectFilter(), shard.Name("").InboxPrefix(natsconn.ApplierIdentity) + ".>", "_INBOX.>"} {
		if _, err := wc.SubscribeSync(subject); err != nil {
			t.Fatal(err)
		}
		if err := wc.Flush(); err != nil {
			t.Fatal(err)
		}
		expectViolation(t, werrs, "subscription", subject)
	}
}

func TestApplierConsumesButCannotPublishRequests(t *testing.T) {
	s := startSecured(t, false)
	ctx := ctxT(t)
	wc, _ := connect(t, s.watcher, natsconn.WatcherIdentity, "")
	wjs, _ := jetstream.New(wc)
	if _, err := reconcilerequest.EnsureStream(ctx, wjs, "", reconcilerequest.WithMemoryStorage()); err != nil {
		t.Fatal(err)
	}
	req := reconcilerequest.Request{Namespace: "default", Name: "demo", Reason: "Created"}
	if _, err := reconcilerequest.NewPublisher(wjs, "").Publish(ctx, req, "uid/generation/1"); err != nil {
		t.Fatal(err)
	}

	ac, aerrs := connect(t, s.applier, natsconn.ApplierIdentity, "")
	ajs, _ := jetstream.New(ac)
	if _, err := reconcilerequest.EnsureStream(ctx, ajs, "", reconcilerequest.WithMemoryStorage()); err != nil {
		t.Fatalf("applier ensuring the stream: %v", err)
	}
	cons, err := reconcilerequest.EnsureConsumer(ctx, ajs, "")
	if err != nil {
		t.Fatalf("applier ensuring its consumer: %v", err)
	}
	if _, err := ajs.Consumer(ctx, shard.Name("").Stream(), shard.Name("").Consumer()); err != nil {
		t.Fatalf("applier binding its consumer: %v", err)
	}
	it, err := cons.Messages()
	if err != nil {
		t.Fatal(err)
	}
	defer it.Stop()
	msg, err := it.Next()
	if err != nil {
		t.Fatalf("applier pulling: %v", err)
	}
	got, err := reconcilerequest.Decode(msg.Data())
	if err != nil || got.Name != "demo" {
		t.Fatalf("applier got %+v, %v", got, err)
	}
	if err := msg.InProgress(); err != nil {
		t.Fatal(err)
	}
	if err := msg.DoubleAck(ctx); err != nil {
		t.Fatalf("applier acking: %v", err)
	}

	// Its key-value state: leases and fingerprints.
	leases, err := lease.Open(ctx, ajs, lease.Config{Bucket: shard.Name("").LeaseBucket(), TTL: 30 * time.Second, Holder: "test"})
	if err != nil {
		t.Fatalf("applier opening the lease bucket: %v", err)
	}
	if err := leases.Hold(ctx, lease.Key("default", "demo"), func(context.Context) error { return nil }); err != nil {
		t.Fatalf("applier holding a lease: %v", err)
	}
	kv, err := ajs.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: shard.Name("").FingerprintBucket(), History: 1})
	if err != nil {
		t.Fatalf("applier opening the fingerprint bucket: %v", err)
	}
	if _, err := kv.Put(ctx, "default.demo", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if e, err := kv.Get(ctx, "default.demo"); err != nil || string(e.Value()) != "x" {
		t.Fatalf("applier reading its fingerprint: %v", err)
	}
	if err := kv.Delete(ctx, "default.demo"); err != nil {
		t.Fatal(err)
	}

	// Without drift requests it cannot publish one.
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := reconcilerequest.NewPublisher(ajs, "").Publish(short, req, "uid/generation/2"); err == nil {
		t.Fatal("the applier published a reconcile request")
	}
	expectViolation(t, aerrs, "publish", "fkc.v1.reconcile.default.demo")
	if _, err := ac.SubscribeSync(shard.Name("").InboxPrefix(natsconn.WatcherIdentity) + ".>"); err != nil {
		t.Fatal(err)
	}
	_ = ac.Flush()
	expectViolation(t, aerrs, "subscription", shard.Name("").InboxPrefix(natsconn.WatcherIdentity))
}

func TestApplierWithDriftDetectionMayRequestReconciles(t *testing.T) {
	s := startSecured(t, true)
	ctx := ctxT(t)
	ac, _ := connect(t, s.applier, natsconn.ApplierIdentity, "")
	ajs, _ := jetstream.New(ac)
	if _, err := reconcilerequest.EnsureStream(ctx, ajs, "", reconcilerequest.WithMemoryStorage()); err != nil {
		t.Fatal(err)
	}
	req := reconcilerequest.Request{Namespace: "default", Name: "demo", Reason: "DriftDetected"}
	if _, err := reconcilerequest.NewPublisher(ajs, "").Publish(ctx, req, "drift/1"); err != nil {
		t.Fatalf("the applier could not request a drift reconcile: %v", err)
	}
}

// A shard's users reach their shard's stream, consumer and buckets and nothing of
// the unsharded instance (nor, by the same names, of another shard).
func TestShardUsersReachOnlyTheirShard(t *testing.T) {
	const sh shard.Name = "shard1"
	s := startSecuredShard(t, true, sh)
	ctx := ctxT(t)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()

	wc, werrs := connect(t, s.watcher, natsconn.WatcherIdentity, sh)
	wjs, _ := jetstream.New(wc)
	if _, err := reconcilerequest.EnsureStream(ctx, wjs, sh, reconcilerequest.WithMemoryStorage()); err != nil {
		t.Fatalf("the shard's watcher ensuring its stream: %v", err)
	}
	req := reconcilerequest.Request{Namespace: "default", Name: "demo", Reason: "Created"}
	if _, err := reconcilerequest.NewPublisher(wjs, sh).Publish(ctx, req, "uid/generation/1"); err != nil {
		t.Fatalf("the shard's watcher publishing: %v", err)
	}
	if _, err := reconcilerequest.EnsureStream(short, wjs, "", reconcilerequest.WithMemoryStorage()); err == nil {
		t.Fatal("the shard's watcher created the unsharded stream")
	}
	if _, err := wc.Request(reconcilerequest.Subject("", "default", "demo"), nil, time.Second); err == nil {
		t.Fatal("the shard's watcher published an unsharded request")
	}
	expectViolation(t, werrs, "publish", reconcilerequest.Subject("", "default", "demo"))

	ac, aerrs := connect(t, s.applier, natsconn.ApplierIdentity, sh)
	ajs, _ := jetstream.New(ac)
	cons, err := reconcilerequest.EnsureConsumer(ctx, ajs, sh)
	if err != nil {
		t.Fatalf("the shard's applier ensuring its consumer: %v", err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for msg := range batch.Messages() {
		if err := msg.DoubleAck(ctx); err != nil {
			t.Fatalf("the shard's applier acking: %v", err)
		}
	}
	if batch.Error() != nil {
		t.Fatalf("the shard's applier pulling: %v", batch.Error())
	}
	if _, err := lease.Open(ctx, ajs, lease.Config{Bucket: sh.LeaseBucket(), TTL: 30 * time.Second, Holder: "test"}); err != nil {
		t.Fatalf("the shard's applier opening its lease bucket: %v", err)
	}
	if _, err := ajs.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: sh.FingerprintBucket(), History: 1}); err != nil {
		t.Fatalf("the shard's applier opening its fingerprint bucket: %v", err)
	}
	if _, err := ajs.CreateOrUpdateKeyValue(short, jetstream.KeyValueConfig{Bucket: shard.Name("").LeaseBucket(), History: 1}); err == nil {
		t.Fatal("the shard's applier created the unsharded lease bucket")
	}
	unsharded := shard.Name("").InboxPrefix(natsconn.ApplierIdentity) + ".>"
	if _, err := ac.SubscribeSync(unsharded); err != nil {
		t.Fatal(err)
	}
	_ = ac.Flush()
	expectViolation(t, aerrs, "subscription", unsharded)
}

// expectViolation waits for the server's permissions-violation error naming subject.
func expectViolation(t *testing.T, errs <-chan error, kind, subject string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case err := <-errs:
			if errors.Is(err, nats.ErrPermissionViolation) || strings.Contains(err.Error(), "Permissions Violation") {
				if strings.Contains(strings.ToLower(err.Error()), kind) && strings.Contains(err.Error(), subject) {
					return
				}
			}
		case <-timeout:
			t.Fatalf("no permissions violation for %s %q", kind, subject)
		}
	}
}
