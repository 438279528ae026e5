package natsconn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// Identities the services connect as; the user names of the rendered configuration.
const (
	WatcherIdentity = "watcher"
	ApplierIdentity = "applier"
)

// Permissions are the subjects one user may publish to and subscribe to; everything
// else is denied.
type Permissions struct {
	Publish   []string
	Subscribe []string
}

// streamManagement lets a user create, update and inspect one stream (the watcher and
// the applier both ensure the reconcile stream at start, whichever comes first).
func streamManagement(stream string) []string {
	return []string{
		"$JS.API.STREAM.CREATE." + stream,
		"$JS.API.STREAM.UPDATE." + stream,
		"$JS.API.STREAM.INFO." + stream,
	}
}

// WatcherPermissions: publish the shard's reconcile requests and keep their stream;
// read only its own replies (publish acknowledgements, stream info). It can neither
// consume requests nor touch the applier's buckets, nor reach another shard's names.
func WatcherPermissions(s shard.Name) Permissions {
	return Permissions{
		Publish:   append([]string{s.SubjectFilter()}, streamManagement(s.Stream())...),
		Subscribe: []string{s.InboxPrefix(WatcherIdentity) + ".>"},
	}
}

// ApplierPermissions: bind the shard's durable consumer, pull and acknowledge
// requests, and keep its two key-value buckets (per-KCLRun write leases and applied
// fingerprints). With driftRequests (--drift-detection, on by default) it may also
// publish reconcile requests: an edited applied object asks for a reconcile of its
// owner through the stream, so every replica's observation coalesces into one request.
func ApplierPermissions(s shard.Name, driftRequests bool) Permissions {
	var pub []string
	if driftRequests {
		pub = append(pub, s.SubjectFilter())
	}
	pub = append(pub, streamManagement(s.Stream())...)
	consumer := s.Stream() + "." + s.Consumer()
	pub = append(pub,
		"$JS.API.CONSUMER.CREATE."+consumer,
		"$JS.API.CONSUMER.CREATE."+consumer+".>",
		"$JS.API.CONSUMER.DURABLE.CREATE."+consumer,
		"$JS.API.CONSUMER.INFO."+consumer,
		"$JS.API.CONSUMER.MSG.NEXT."+consumer,
		"$JS.ACK."+consumer+".>",
	)
	// Creating a key-value bucket reads the account's JetStream limits first.
	pub = append(pub, "$JS.API.INFO")
	for _, bucket := range []string{s.LeaseBucket(), s.FingerprintBucket()} {
		stream := shard.KeyValueStream(bucket)
		pub = append(pub, streamManagement(stream)...)
		pub = append(pub,
			"$KV."+bucket+".>",
			"$JS.API.DIRECT.GET."+stream,
			"$JS.API.DIRECT.GET."+stream+".>",
			"$JS.API.STREAM.MSG.GET."+stream,
		)
	}
	return Permissions{Publish: pub, Subscribe: []string{s.InboxPrefix(ApplierIdentity) + ".>"}}
}

// User is one identity's credentials in the server configuration: a password (plain
// or a bcrypt hash, "$2a$..."), or an NKey public key ("U...").
type User struct {
	Name     string
	Password string
	NKey     string
}

// ServerTLS is the server side of TLS; Verify asks clients for certificates signed by
// CAFile.
type ServerTLS struct {
	CertFile, KeyFile, CAFile string
	Verify                    bool
}

// ServerConfig is what RenderServerConfig writes.
type ServerConfig struct {
	// Shard names the stream, subjects, consumer and buckets the users may reach
	// (the services' --shard); "" is the unsharded instance.
	Shard   shard.Name
	Watcher User
	Applier User
	// ApplierDriftRequests must follow the applier's --drift-detection (default true).
	ApplierDriftRequests bool
	// TLS is optional.
	TLS *ServerTLS
}

// RenderServerConfig writes the nats-server configuration blocks (authorization and,
// if set, tls) for the two identities; include them in the server's configuration
// next to its listen and jetstream settings.
func RenderServerConfig(c ServerConfig) (string, error) {
	if err := c.Shard.Validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	if c.TLS != nil {
		fmt.Fprintf(&b, "tls {\n  cert_file: %s\n  key_file: %s\n", quote(c.TLS.CertFile), quote(c.TLS.KeyFile))
		if c.TLS.CAFile != "" {
			fmt.Fprintf(&b, "  ca_file: %s\n", quote(c.TLS.CAFile))
		}
		if c.TLS.Verify {
			b.WriteString("  verify: true\n")
		}
		b.WriteString("}\n")
	}
	b.WriteString("authorization {\n  users: [\n")
	for _, u := range []struct {
		user  User
		perms Permissions
	}{
		{c.Watcher, WatcherPermissions(c.Shard)},
		{c.Applier, ApplierPermissions(c.Shard, c.ApplierDriftRequests)},
	} {
		switch {
		case u.user.NKey != "" && u.user.Password == "":
			fmt.Fprintf(&b, "    {\n      nkey: %s\n", quote(u.user.NKey))
		case u.user.Name != "" && u.user.Password != "" && u.user.NKey == "":
			fmt.Fprintf(&b, "    {\n      user: %s\n      password: %s\n", quote(u.user.Name), quote(u.user.Password))
		default:
			return "", fmt.Errorf("user %q: give a name and password, or an NKey", u.user.Name)
		}
		b.WriteString("      permissions: {\n")
		fmt.Fprintf(&b, "        publish: { allow: %s }\n", list(u.perms.Publish))
		fmt.Fprintf(&b, "        subscribe: { allow: %s }\n", list(u.perms.Subscribe))
		b.WriteString("      }\n    }\n")
	}
	b.WriteString("  ]\n}\n")
	return b.String(), nil
}

func quote(s string) string { return strconv.Quote(s) }

func list(subjects []string) string {
	q := make([]string, len(subjects))
	for i, s := range subjects {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
