// Package tlsfiles builds TLS configurations for mutual TLS from PEM files mounted from a
// Secret (tls.crt, tls.key, ca.crt), re-reading them when they change so a rotated
// Secret takes effect on the next handshake without a restart.
package tlsfiles

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"
)

// DefaultMaxAge is how long files read from disk are trusted before they are read
// again: a Secret update reaches the pod's volume within a minute or so anyway.
const DefaultMaxAge = 10 * time.Second

// Files names the PEM files of one side of a mutual-TLS link.
type Files struct {
	// CertFile and KeyFile are this side's certificate chain and private key.
	CertFile, KeyFile string
	// CAFile holds the CAs the other side's certificate must chain to.
	CAFile string
}

// BindFlags registers --<prefix>-cert-file, --<prefix>-key-file and --<prefix>-ca-file.
func (f *Files) BindFlags(fs *pflag.FlagSet, prefix, caUsage string) {
	fs.StringVar(&f.CertFile, prefix+"-cert-file", f.CertFile, "PEM certificate (chain) this side presents; turns TLS on (with --"+prefix+"-key-file).")
	fs.StringVar(&f.KeyFile, prefix+"-key-file", f.KeyFile, "PEM private key of --"+prefix+"-cert-file.")
	fs.StringVar(&f.CAFile, prefix+"-ca-file", f.CAFile, caUsage)
}

// Enabled reports whether any file is set, that is whether TLS is asked for.
func (f Files) Enabled() bool { return f.CertFile != "" || f.KeyFile != "" || f.CAFile != "" }

// Reloader reads the files and hands out the current certificate and CA pool.
type Reloader struct {
	files Files
	// MaxAge bounds how long a read is reused; 0 reads the files at every handshake.
	MaxAge time.Duration

	mu     sync.Mutex
	readAt time.Time
	raw    [3][]byte
	cert   *tls.Certificate
	pool   *x509.CertPool
}

// NewReloader reads the files once, so that a bad path or a broken PEM fails at start.
func NewReloader(files Files) (*Reloader, error) {
	if (files.CertFile == "") != (files.KeyFile == "") {
		return nil, errors.New("the certificate file and the key file go together")
	}
	r := &Reloader{files: files, MaxAge: DefaultMaxAge}
	if _, _, err := r.current(); err != nil {
		return nil, err
	}
	return r, nil
}

// current returns the certificate (nil without CertFile) and CA pool (nil without
// CAFile), reading the files again once MaxAge has passed. A failed re-read (a Secret
// half-written) keeps serving the last good pair.
func (r *Reloader) current() (*tls.Certificate, *x509.CertPool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cert != nil || r.pool != nil {
		if time.Since(r.readAt) < r.MaxAge {
			return r.cert, r.pool, nil
		}
	}
	err := r.reload()
	if err != nil && r.cert == nil && r.pool == nil {
		return nil, nil, err
	}
	return r.cert, r.pool, nil
}

func (r *Reloader) reload() error {
	var raw [3][]byte
	for i, path := range []string{r.files.CertFile, r.files.KeyFile, r.files.CAFile} {
		if path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		raw[i] = b
	}
	if r.cert != nil || r.pool != nil {
		if bytes.Equal(raw[0], r.raw[0]) && bytes.Equal(raw[1], r.raw[1]) && bytes.Equal(raw[2], r.raw[2]) {
			r.readAt = time.Now()
			return nil
		}
	}
	var cert *tls.Certificate
	if raw[0] != nil {
		c, err := tls.X509KeyPair(raw[0], raw[1])
		if err != nil {
			return fmt.Errorf("loading %s and %s: %w", r.files.CertFile, r.files.KeyFile, err)
		}
		cert = &c
	}
	var pool *x509.CertPool
	if raw[2] != nil {
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(raw[2]) {
			return fmt.Errorf("no PEM certificate in %s", r.files.CAFile)
		}
	}
	r.raw, r.cert, r.pool, r.readAt = raw, cert, pool, time.Now()
	return nil
}

// ServerConfig serves the current certificate and, when CAFile is set, requires
// clients to present a certificate signed by one of its CAs.
func ServerConfig(r *Reloader) (*tls.Config, error) {
	if r.files.CertFile == "" {
		return nil, errors.New("a TLS server needs a certificate and a key file")
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cert, pool, err := r.current()
			if err != nil {
				return nil, err
			}
			c := &tls.Config{
				MinVersion:   tls.VersionTLS12,
				Certificates: []tls.Certificate{*cert},
				NextProtos:   []string{"h2"}, // gRPC insists on ALPN
			}
			if pool != nil {
				c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
			}
			return c, nil
		},
	}, nil
}

// ClientConfig presents the current certificate (if any) and verifies the server
// against the current CA pool. The server's certificate must name serverName, or the
// host of the dialled address when serverName is empty.
func ClientConfig(r *Reloader, serverName string) (*tls.Config, error) {
	if r.files.CAFile == "" {
		return nil, errors.New("a TLS client needs the CA file that signed the server's certificate")
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		ServerName: serverName,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			cert, _, err := r.current()
			if err != nil {
				return nil, err
			}
			if cert == nil {
				return &tls.Certificate{}, nil // none: a server requiring one refuses us
			}
			return cert, nil
		},
		// The CA pool can change after the config is built, so the chain is checked
		// here against the current pool instead of by a fixed RootCAs.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			_, pool, err := r.current()
			if err != nil {
				return err
			}
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server presented no certificate")
			}
			opts := x509.VerifyOptions{Roots: pool, DNSName: cs.ServerName, Intermediates: x509.NewCertPool()}
			for _, c := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
				return fmt.Errorf("verifying the server's certificate: %w", err)
			}
			return nil
		},
	}, nil
}
