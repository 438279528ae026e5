// Package natsconn turns the NATS flags of the watcher and the applier (server URL,
// credentials and TLS files mounted from Secrets) into a connection, and renders the
// nats-server authorization that gives each of them only the subjects it needs.
//
// Credentials and certificates are read from their files at every (re)connect, so a
// rotated Secret takes effect on the next reconnect without a restart.
package natsconn

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/spf13/pflag"

	"github.com/kcl-lang/flux-kcl-controller/internal/shard"
)

// Config holds the flags of one NATS client.
type Config struct {
	// URL is the NATS server (nats:// or tls://; comma-separated for a cluster).
	URL string
	// CredsFile is a decentralised-auth .creds file (user JWT and NKey seed).
	CredsFile string
	// NKeySeedFile holds a user NKey seed (SU...), answered to the server's nonce.
	NKeySeedFile string
	// UserFile and PasswordFile hold a user name and its password.
	UserFile     string
	PasswordFile string
	// TLSCAFile verifies the server's certificate; TLSCertFile and TLSKeyFile are this
	// client's certificate when the server asks for one (verify: true).
	TLSCAFile   string
	TLSCertFile string
	TLSKeyFile  string
}

// DefaultConfig is a local server without authentication.
func DefaultConfig() Config { return Config{URL: nats.DefaultURL} }

// BindFlags registers the flags on fs, defaulting to the values already in c.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.URL, "nats-url", c.URL, "The NATS server with JetStream (nats:// or tls://; comma-separated for a cluster).")
	fs.StringVar(&c.CredsFile, "nats-creds", c.CredsFile, "A NATS .creds file (user JWT and NKey seed) to authenticate with.")
	fs.StringVar(&c.NKeySeedFile, "nats-nkey-seed-file", c.NKeySeedFile, "A file holding the NATS user NKey seed to authenticate with.")
	fs.StringVar(&c.UserFile, "nats-user-file", c.UserFile, "A file holding the NATS user name (with --nats-password-file).")
	fs.StringVar(&c.PasswordFile, "nats-password-file", c.PasswordFile, "A file holding the NATS user's password (with --nats-user-file).")
	fs.StringVar(&c.TLSCAFile, "nats-tls-ca-file", c.TLSCAFile, "PEM CA bundle verifying the NATS server's certificate; setting it turns TLS on.")
	fs.StringVar(&c.TLSCertFile, "nats-tls-cert-file", c.TLSCertFile, "PEM client certificate presented to the NATS server (with --nats-tls-key-file).")
	fs.StringVar(&c.TLSKeyFile, "nats-tls-key-file", c.TLSKeyFile, "PEM private key of --nats-tls-cert-file.")
}

// Validate reports flags that cannot work together.
func (c Config) Validate() error {
	methods := 0
	for _, set := range []bool{c.CredsFile != "", c.NKeySeedFile != "", c.UserFile != "" || c.PasswordFile != ""} {
		if set {
			methods++
		}
	}
	var errs []error
	if methods > 1 {
		errs = append(errs, errors.New("choose one of --nats-creds, --nats-nkey-seed-file and --nats-user-file/--nats-password-file"))
	}
	if (c.UserFile == "") != (c.PasswordFile == "") {
		errs = append(errs, errors.New("--nats-user-file and --nats-password-file go together"))
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		errs = append(errs, errors.New("--nats-tls-cert-file and --nats-tls-key-file go together"))
	}
	return errors.Join(errs...)
}

// Options are the nats.go options of a connection for identity (watcher, applier) of
// shard s: authentication, TLS, its own inbox prefix (shard.Name.InboxPrefix, which
// the server configuration lets only this identity read), reconnecting forever.
func (c Config) Options(identity string, s shard.Name) ([]nats.Option, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	opts := []nats.Option{
		nats.Name(s.ConnectionName(identity)),
		nats.CustomInboxPrefix(s.InboxPrefix(identity)),
		nats.MaxReconnects(-1),
	}
	switch {
	case c.CredsFile != "":
		opts = append(opts, nats.UserCredentials(c.CredsFile))
	case c.NKeySeedFile != "":
		opt, err := nats.NkeyOptionFromSeed(c.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("reading --nats-nkey-seed-file %s: %w", c.NKeySeedFile, err)
		}
		opts = append(opts, opt)
	case c.UserFile != "":
		// Read at every connect: a rotated password is picked up on reconnect.
		userInfo := func() (string, string) {
			user, _ := readSecretFile(c.UserFile)
			password, _ := readSecretFile(c.PasswordFile)
			return user, password
		}
		if _, err := readSecretFile(c.UserFile); err != nil {
			return nil, fmt.Errorf("reading --nats-user-file: %w", err)
		}
		if _, err := readSecretFile(c.PasswordFile); err != nil {
			return nil, fmt.Errorf("reading --nats-password-file: %w", err)
		}
		opts = append(opts, nats.UserInfoHandler(userInfo))
	}
	// nats.go reads these files again at every TLS handshake.
	if c.TLSCAFile != "" {
		opts = append(opts, nats.RootCAs(c.TLSCAFile))
	}
	if c.TLSCertFile != "" {
		opts = append(opts, nats.ClientCert(c.TLSCertFile, c.TLSKeyFile))
	}
	return opts, nil
}

// Connect connects identity of shard s to the server. Extra options come last.
func (c Config) Connect(identity string, s shard.Name, extra ...nats.Option) (*nats.Conn, error) {
	opts, err := c.Options(identity, s)
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(c.URL, append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("connecting to NATS at %s as %s: %w", c.URL, identity, err)
	}
	return nc, nil
}

// readSecretFile reads a one-line secret; a trailing newline (kubectl create secret
// --from-file, editors) is not part of it.
func readSecretFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return s, nil
}
